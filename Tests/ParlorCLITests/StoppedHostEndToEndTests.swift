import Foundation
@preconcurrency import Glibc
import Match
import ParlorTestSupport
import Session
import Testing

/// Issue 17 item 13 with real processes: a guest connects and says HELLO
/// while the host is stopped (SIGSTOP), gives up and leaves; when the host
/// continues it must not seat that departed guest, and the next real guest
/// gets the seat and plays the match.
@Suite(.serialized) struct StoppedHostEndToEndTests {
    @Test func aGuestThatGaveUpWhileTheHostWasStoppedIsNeverSeated() async throws {
        let table = ResumeEndToEndTests.Table()
        let host = try SpawnedParlor(ResumeEndToEndTests.hostArguments, environment: table.environment(.host))
        let listening = try #require(await host.line(containing: "\"listening\""), Comment(rawValue: host.transcript))
        let port = try #require(UInt16(ResumeEndToEndTests.port(from: listening) ?? ""))

        host.send(SIGSTOP)
        // The kernel completes the connection while the host is stopped; the HELLO waits in its buffer.
        let gone = try await TCPConnection.connect(host: "127.0.0.1", port: port).byteStream()
        gone.send(Message.hello(Hello(appVersion: "test", playerID: .random(), playerName: "Gone")).encoded)
        try await Task.sleep(for: .milliseconds(300))
        gone.close()
        try await Task.sleep(for: .milliseconds(300))
        host.send(SIGCONT)

        let guest = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--bot", "easy", "--json"], environment: table.environment(.guest))
        #expect(await guest.wait(timeout: .seconds(60)) == 0, Comment(rawValue: guest.transcript))
        #expect(await host.wait(timeout: .seconds(30)) == 0, Comment(rawValue: host.transcript))
        #expect(!host.output.contains("Gone"), Comment(rawValue: host.transcript))
    }
}
