@preconcurrency import Glibc
import Match
import ParlorTestSupport
import Synchronization
import Testing
@testable import Session

/// One pacer for every passcode guess a host sees: protocol 2's proofs in
/// HELLO (`--allow-unencrypted`) and protocol 3's offers in the encrypted
/// handshake go through the same queue, so a guesser that alternates the two
/// kinds is slowed as one guesser, not given twice the guesses; and every
/// table of a hall shares the hall's queue.
@Suite("One passcode pacer per host", .serialized)
struct SharedGuessesTests {
    static let code = "K7M-Q4P"

    /// A wrong protocol 2 proof from `source`, answered.
    static func wrongClearProof(from source: String, port: UInt16) async throws -> Message? {
        let peer = TCPProtocolPeer(connection: try connectFrom(source, to: port))
        defer { peer.close() }
        peer.send(.hello(PasscodeLoopbackTests.hello("Eve")))
        guard case .challenge? = await peer.next(timeout: .seconds(12)) else { return nil }
        peer.send(.hello(PasscodeLoopbackTests.hello("Eve", proof: (0..<48).map { _ in UInt8.random(in: 0...255) })))
        return await peer.next(timeout: .seconds(12))
    }

    @Test("a wrong clear proof slows that address's next guess in the encrypted handshake too")
    func clearAndSealedGuessesShareOneQueue() async throws {
        let (host, listener, acceptor) = try PasscodeLockoutTests.guardedHost()
        defer { acceptor.cancel(); listener.close() }
        let throttle = await host.configuration.passcodeThrottle

        for _ in 0..<2 {
            guard case .reject(.passcodeWrong, _)? = try await Self.wrongClearProof(from: "127.0.0.7", port: listener.port) else {
                Issue.record("a wrong clear proof was not answered passcodeWrong"); return
            }
        }
        // The same address now offers a code in the encrypted handshake, which
        // asks `host.guesses` for its turn: it waits as after two wrong guesses.
        let now = ContinuousClock.now
        let turn = try #require(host.guesses.arrive(from: "127.0.0.7", at: now) {})
        defer { host.guesses.remove(turn.id) }
        #expect(turn.at - now >= throttle.delay(afterWrongProofs: 2),
                "the encrypted handshake's guess waited \(turn.at - now), as if the clear guesses had not happened")
        // Another address is not slowed by them (beyond the host's one-at-a-time turns).
        let other = try #require(host.guesses.arrive(from: "127.0.0.8", at: now) {})
        defer { host.guesses.remove(other.id) }
        #expect(other.at - now < throttle.delay(afterWrongProofs: 2))
    }

    @Test("every table of a hall paces its guesses in the hall's one queue")
    func aHallsTablesShareItsQueue() async throws {
        var configuration = HostConfiguration(gameID: "connect4", hostName: "Ana", hostPlayerID: .random(), appVersion: "test")
        configuration.passcode = Self.code
        let made = Mutex<[PasscodeGuesses?]>([])
        let hall = try TableHall(configuration: configuration, limit: 3) { own in
            made.withLock { $0.append(own.sharedGuesses) }
            return try? MatchHost(configuration: own)
        }
        var guests: [InMemoryByteStream] = []
        for _ in 0..<2 {
            let (guest, hostEnd) = InMemoryByteStream.pair()
            guests.append(guest)
            await hall.accept(hostEnd)
            guest.send(Message.hello(PasscodeLoopbackTests.hello("Eve")).encoded)
        }
        let limit = ContinuousClock.now + .seconds(10)
        while made.withLock({ $0.count }) < 2, ContinuousClock.now < limit { try await Task.sleep(for: .milliseconds(10)) }
        let pacers = made.withLock { $0 }
        #expect(pacers.count == 2, "the hall opened \(pacers.count) tables")
        let first = try #require(pacers.first ?? nil)
        #expect(pacers.allSatisfy { $0 === first }, "the tables pace guesses in queues of their own")
        for guest in guests { guest.close() }
        await hall.shutdown()
    }
}
