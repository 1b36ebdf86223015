import Foundation
import Bots
import Games
import Match
import ParlorTestSupport
import Testing
@testable import Session

/// Issue 10 item 5: read demand flows back to the socket. A guest in a real
/// connect4 match over loopback TCP floods the host with well-formed HEARTBEAT
/// frames (16 bytes each, which the host reads, decodes and ignores) far faster
/// than the host can look at them. The host must pause reading at its
/// connection's 1 MiB inbound limit, so the flood waits in the kernel's buffers
/// and in the flooder's paced send queue, not in the host's memory; and the
/// match must still be played to its end.
@Suite("Read backpressure", .serialized)
struct ReadBackpressureTests {
    /// Bytes of HEARTBEAT frames the guest pushes at the host.
    static let floodBytes = 32 << 20
    /// The most the process's resident memory may grow during the flood. With
    /// the reads paused at the socket the host holds at most its 1 MiB inbound
    /// queue and the flooder at most its 1 MiB send queue; an unbounded buffer
    /// between socket and reader holds most of the 32 MiB.
    static let residentGrowthBound = 12 << 20

    @Test("a guest flooding 32 MiB of frames during a match: the host's memory grows less than 12 MiB and the match finishes")
    func floodedHostStaysBounded() async throws {
        let timeouts = SessionTimeouts(handshake: .seconds(5), heartbeatInterval: .milliseconds(500),
                                       heartbeatTimeout: .seconds(30), confirmation: .seconds(60), grace: .seconds(30))
        let listener = try TCPListener.listen(port: 0, on: .specific(try SocketAddress(ipAddress: "127.0.0.1", port: 0)))
        defer { listener.close() }
        let host = try MatchHost(configuration: HostConfiguration(
            gameID: "connect4", hostName: "Ana", hostPlayerID: .random(), seatPreference: .first,
            timeouts: timeouts, appVersion: "test"))
        let acceptor = Task { await host.serve(listener, security: .clear) }
        defer { acceptor.cancel() }

        let connection = try await TCPConnection.connect(host: "127.0.0.1", port: listener.port)
        async let joining = Guest.join(over: connection.byteStream(),
                                       hello: Hello(appVersion: "test", playerID: .random(), playerName: "Ben"))
        let hosted = try await host.waitForGuest()
        let joined = try await joining
        let (hostController, _) = hosted.makeController { BotParticipant(playerID: $0, strategy: TestStrategies.seeded(3)) }
        let (guestController, _) = joined.makeController { BotParticipant(playerID: $0, strategy: TestStrategies.seeded(4)) }

        let before = try #require(Self.residentBytes())
        let sampler = Task { () -> Int in
            var highest = 0
            while !Task.isCancelled {
                highest = max(highest, Self.residentBytes() ?? 0)
                try? await Task.sleep(for: .milliseconds(10))
            }
            return max(highest, Self.residentBytes() ?? 0)
        }
        // The flooder keeps its own send queue under 1 MiB, so the only place
        // a flood can pile up in this process is the host's side. The first
        // MiB goes out before the match starts, so every one of the guest's
        // turns travels behind flood frames.
        let beat = Message.heartbeat(senderTime: 1).encoded
        let chunk = Array([[UInt8]](repeating: beat, count: (64 << 10) / beat.count).joined())
        var sent = 0
        while sent < 1 << 20, connection.send(chunk) { sent += chunk.count }
        try await guestController.start()
        try await hostController.start()
        while sent < Self.floodBytes, connection.isOpen {
            if connection.queuedByteCount < 1 << 20 {
                guard connection.send(chunk) else { break }
                sent += chunk.count
            } else {
                try await Task.sleep(for: .milliseconds(1))
            }
        }
        let hostFinal = await hostController.finished()
        let guestFinal = await guestController.finished()
        sampler.cancel()
        let growth = await sampler.value - before
        await host.shutdown()

        print("read backpressure: \(sent >> 20) MiB of HEARTBEAT frames flooded; resident memory grew by "
              + "\(growth >> 10) KiB (bound \(Self.residentGrowthBound >> 20) MiB); match ended after \(hostFinal.moves.count) moves")
        #expect(sent >= Self.floodBytes, "the flood stopped after \(sent) bytes: the host closed the connection")
        #expect(growth < Self.residentGrowthBound, "resident memory grew by \(growth >> 10) KiB during the flood")
        #expect(hostFinal.isEnded && hostFinal.stateHash == guestFinal.stateHash && hostFinal.moves == guestFinal.moves,
                "the flooded match did not end with one state on both sides")
    }

    /// This process's resident set (VmRSS in /proc/self/status), in bytes.
    static func residentBytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kib = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return kib << 10
    }
}
