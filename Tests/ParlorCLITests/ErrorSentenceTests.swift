@preconcurrency import Glibc
import Foundation
import ParlorTestSupport
@testable import Session
import Testing
@testable import ParlorCLI

/// Every connect and resolve error is one sentence: what happened and what to
/// do, each said once. `parlor join localhost:1` used to read "could not
/// connect to localhost:1: could not connect to localhost port 1: connection
/// refused (127.0.0.1:1: connection refused); nothing is listening on port 1; …".
@Suite("One clear sentence per connect error")
struct ErrorSentenceTests {
    static func attempt(_ ip: String, _ port: UInt16, _ failure: Session.ConnectFailure) throws -> ConnectAttempt {
        ConnectAttempt(address: try SocketAddress(ipAddress: ip, port: port), failure: failure)
    }

    @Test("each failure's sentence, exactly")
    func sentences() throws {
        func message(_ target: String, _ error: NetError) -> String { ParlorCLI.ConnectFailure(target: target, error: error).message }
        #expect(message("localhost:1", .connectFailed(host: "localhost", port: 1, attempts: [try Self.attempt("127.0.0.1", 1, .refused)]))
                == "nothing is listening at localhost:1 (127.0.0.1); check that the host is running and the port is right")
        #expect(message("table:7000", .connectFailed(host: "table", port: 7000, attempts: [
            try Self.attempt("192.0.2.7", 7000, .timedOut(.seconds(5))), try Self.attempt("2001:db8::7", 7000, .unreachable(errno: ENETUNREACH)),
        ])) == "no answer from table:7000 (192.0.2.7, 2001:db8::7) within 5 s; check that the host is on this network and its firewall allows port 7000")
        #expect(message("192.0.2.7:7000", .connectFailed(host: "192.0.2.7", port: 7000, attempts: [
            try Self.attempt("192.0.2.7", 7000, .unreachable(errno: ENETUNREACH)),
        ])) == "no route to 192.0.2.7:7000 (network is unreachable); check the address and the network connection")
        #expect(message("nowhere.invalid:7000", .unknownHost(host: "nowhere.invalid", reason: "Name or service not known"))
                == "unknown host 'nowhere.invalid' (name or service not known); check the spelling, or use a numeric address such as 192.0.2.7 or [fe80::1%eth0]")
        #expect(message("empty:7000", .connectFailed(host: "empty", port: 7000, attempts: []))
                == "empty has no IPv4 or IPv6 address; check the name, or use a numeric address such as 192.0.2.7")
    }

    @Test("no sentence says 'could not connect' twice or names the same address twice")
    func noRepeats() throws {
        let error = NetError.connectFailed(host: "localhost", port: 1, attempts: [try Self.attempt("127.0.0.1", 1, .refused)])
        let text = ParlorCLI.ConnectFailure(target: "localhost:1", error: error).message
        #expect(text.components(separatedBy: "could not connect").count <= 2)
        #expect(text.components(separatedBy: "127.0.0.1").count == 2)
        #expect(text.components(separatedBy: "port 1").count <= 2)
    }

    @Test("the real binary: an unknown host and a port that is not a parlor host read as one sentence each")
    func realBinary() async throws {
        let unknown = try await ParlorProcess.run(["join", "nowhere.invalid:7000", "--bot", "easy"], environment: scratchDataHome(),
                                                  timeout: .seconds(30))
        #expect(unknown.status == 75, "\(unknown.stderr)")
        #expect(unknown.stderr.hasPrefix("Error: unknown host 'nowhere.invalid' ("), "\(unknown.stderr)")
        #expect(unknown.stderr.hasSuffix("; check the spelling, or use a numeric address such as 192.0.2.7 or [fe80::1%eth0]\n"), "\(unknown.stderr)")

        // A listener that answers like a web server.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        #expect(listen(listener, 4) == 0)
        let port = UInt16(bigEndian: address.sin_port)
        Thread {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let reply = Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8)
            _ = reply.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
            Thread.sleep(forTimeInterval: 2)
            close(client)
        }.start()
        let web = try await ParlorProcess.run(["join", "127.0.0.1:\(port)", "--bot", "easy"], environment: scratchDataHome(),
                                              timeout: .seconds(30))
        #expect(web.status == 1, "\(web.stderr)")
        #expect(web.stderr == "Error: could not join: what answered there is not a parlor host (it sent \"HTTP/1.1\"); check the address and the port\n",
                "\(web.stderr)")
    }
}
