import Bots
import Games
import Match
import ParlorTestSupport
import Testing
@testable import Session

/// A hand-driven protocol peer on a real TCP connection: sends messages and
/// reads the host's frames one at a time, so a test can do exactly what an
/// attacker would (replay a captured HELLO, skip the proof).
///
/// `@unchecked Sendable`: each peer is driven by one test task at a time
/// (send, then await the answer), never from two tasks at once.
final class TCPProtocolPeer: @unchecked Sendable {
    let connection: TCPConnection
    private var iterator: TCPConnection.Events.AsyncIterator
    private var decoder = FrameDecoder()
    private(set) var closed = false

    init(connection: TCPConnection) {
        self.connection = connection
        iterator = connection.events.makeAsyncIterator()
    }

    convenience init(port: UInt16) async throws {
        self.init(connection: try await TCPConnection.connect(host: "127.0.0.1", port: port))
    }

    func send(_ message: Message) { _ = connection.send(message.encoded) }

    /// The next message, or nil when the host closed (or nothing came within `timeout`).
    func next(timeout: Duration = .seconds(15)) async -> Message? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let frame = try? decoder.next() { return try? Message.decode(frame) }
            guard !closed else { return nil }
            let timer = Task { [connection] in
                try? await Task.sleep(until: deadline)
                if !Task.isCancelled { connection.abort() }
            }
            let event = await iterator.next()
            timer.cancel()
            switch event {
            case .data(let bytes)?: decoder.append(bytes)
            case .closed?, nil: closed = true
            }
        }
        return nil
    }

    func close() { connection.close() }
}

/// Passcodes end to end through `MatchHost` on real loopback sockets.
@Suite("Passcodes over loopback sockets", .serialized)
struct PasscodeLoopbackTests {
    static let code = "K7M-Q4P"

    func openHost(code: String? = Self.code, throttle: PasscodeThrottle = PasscodeThrottle()) throws -> (TCPListener, MatchHost, Task<Void, Never>) {
        let listener = try TCPListener.listen(port: 0, on: .specific(try SocketAddress(ipAddress: "127.0.0.1", port: 0)))
        var configuration = HostConfiguration(gameID: "connect4", hostName: "Ana", hostPlayerID: .random(), seatPreference: .first,
                                              appVersion: "test")
        configuration.passcode = code
        configuration.passcodeThrottle = throttle
        let host = try MatchHost(configuration: configuration)
        let acceptor = Task { await host.serve(listener, security: .clear) }
        return (listener, host, acceptor)
    }

    static func hello(_ name: String = "Ben", proof: [UInt8] = []) -> Hello {
        Hello(appVersion: "test", playerID: .random(), playerName: name, games: [GameVersion(id: "connect4", rulesVersion: 1)],
              passcodeProof: proof)
    }

    func join(port: UInt16, code: String?, name: String = "Ben") async throws(JoinError) -> JoinedMatch {
        let connection: TCPConnection
        do { connection = try await TCPConnection.connect(host: "127.0.0.1", port: port) } catch {
            throw .connectionClosed("\(error)")
        }
        var options = GuestOptions()
        options.passcode = code
        return try await Guest.join(over: connection.byteStream(), hello: Self.hello(name), options: options)
    }

    @Test("the right code, typed in lower case without the dash, gets the seat")
    func rightCodeIsAdmitted() async throws {
        let (listener, host, acceptor) = try openHost()
        defer { acceptor.cancel(); listener.close() }
        let joined = try await join(port: listener.port, code: "k7mq4p")
        let hosted = try await host.waitForGuest()
        #expect(hosted.guestName == "Ben" && joined.hostName == "Ana")
        #expect(joined.initialState.matchID == hosted.initialState.matchID)
        await host.shutdown()
    }

    @Test("wrong codes from one address are refused passcodeWrong after a delay that grows with each; the right code still works")
    func wrongCodeIsRefusedAfterTheDelay() async throws {
        let (listener, host, acceptor) = try openHost()
        defer { acceptor.cancel(); listener.close() }
        var delays: [Duration] = []
        for _ in 0..<3 {
            let started = ContinuousClock.now
            do {
                _ = try await join(port: listener.port, code: "WRONG1")
                Issue.record("a wrong code was admitted")
            } catch {
                guard case .rejected(.passcodeWrong, let sentence) = error else { Issue.record("got \(error)"); return }
                #expect(sentence == "That passcode is wrong.")
            }
            delays.append(ContinuousClock.now - started)
        }
        print("passcode: wrong-code refusals took \(delays) (none for a clean address, then 1 s, doubling)")
        #expect(delays[0] < .milliseconds(900), "first refusal after \(delays[0])")
        #expect(delays[1] >= .milliseconds(950) && delays[1] < .seconds(3), "second refusal after \(delays[1])")
        #expect(delays[2] >= .milliseconds(1950) && delays[2] < .seconds(4), "third refusal after \(delays[2])")
        #expect(await host.hasGuest == false)
        _ = try await join(port: listener.port, code: Self.code)
        #expect(try await host.waitForGuest().guestName == "Ben")
        await host.shutdown()
    }

    @Test("no proof: CHALLENGE first, then REJECT passcodeRequired at once; a guest without a code says the host needs one")
    func missingProofIsRefused() async throws {
        let (listener, host, acceptor) = try openHost()
        defer { acceptor.cancel(); listener.close() }
        let peer = try await TCPProtocolPeer(port: listener.port)
        peer.send(.hello(Self.hello("Eve")))
        guard case .challenge(let challenge)? = await peer.next() else { Issue.record("no CHALLENGE"); return }
        #expect(challenge.hostNonce.count == 16 && challenge.method == 1)
        let started = ContinuousClock.now
        peer.send(.hello(Self.hello("Eve")))
        guard case .reject(.passcodeRequired, _)? = await peer.next() else { Issue.record("no REJECT passcodeRequired"); return }
        #expect(ContinuousClock.now - started < .milliseconds(900), "a missing proof reveals nothing and is not delayed")
        let after = await peer.next()
        let closed = peer.closed
        #expect(after == nil && closed, "the host must close after REJECT")

        do {
            _ = try await join(port: listener.port, code: nil)
            Issue.record("joined without a code")
        } catch {
            #expect(error == .passcodeNeeded)
        }
        await host.shutdown()
    }

    @Test("a proof captured from another connection is refused passcodeWrong, and one sent before any challenge only gets a challenge")
    func replayedProofIsRefused() async throws {
        let (listener, host, acceptor) = try openHost()
        defer { acceptor.cancel(); listener.close() }
        // The real guest's exchange, as a listener on the wire would capture it.
        let real = try await TCPProtocolPeer(port: listener.port)
        let realHello = Self.hello("Ben")
        real.send(.hello(realHello))
        guard case .challenge(let realChallenge)? = await real.next() else { Issue.record("no CHALLENGE"); return }
        var proved = realHello
        proved.passcodeProof = try PasscodeKey(code: Self.code, matchID: realChallenge.matchID).proof(for: realChallenge)
        real.send(.hello(proved))
        guard case .welcome? = await real.next() else { Issue.record("the real guest was not admitted"); return }

        // The eavesdropper replays the captured HELLO on its own connection.
        let thief = try await TCPProtocolPeer(port: listener.port)
        thief.send(.hello(proved))
        guard case .challenge(let thiefChallenge)? = await thief.next() else { Issue.record("no CHALLENGE for the replay"); return }
        #expect(thiefChallenge.hostNonce != realChallenge.hostNonce)
        thief.send(.hello(proved))
        guard case .reject(.passcodeWrong, _)? = await thief.next() else { Issue.record("the replayed proof was not refused"); return }
        real.close()
        await host.shutdown()
    }

    /// The guest's turn round trips (play → CONFIRM → committed) in one
    /// connect4 match, with a pause between turns so the match lasts a while.
    func guestTurnTimes(host: MatchHost, port: UInt16, whenJoined: @Sendable () async throws -> Void = {}) async throws -> [Duration] {
        let joined = try await join(port: port, code: Self.code)
        let hosted = try await host.waitForGuest()
        try await whenJoined()
        let (hostController, _) = hosted.makeController { BotParticipant(playerID: $0, strategy: TestStrategies.firstLegal) }
        let (guestController, local) = joined.makeController { LocalParticipant(playerID: $0) }
        let events = await guestController.events()
        try await hostController.start()
        try await guestController.start()
        var times: [Duration] = []
        for await event in events {
            guard case .turnBegan(let seat, let state) = event, seat == joined.seat else { continue }
            // Answer in the host's column: stacks alternate, so the match runs to some 18 guest turns.
            let legal = state.game.legalMoves
            guard let move = state.moves.last.map(\.move).flatMap({ legal.contains($0) ? $0 : nil }) ?? legal.first else { break }
            try await Task.sleep(for: .milliseconds(150))
            let started = ContinuousClock.now
            guard case .committed = await local.play(move) else { break }
            times.append(ContinuousClock.now - started)
        }
        let final = await hostController.finished()
        #expect(final.isEnded)
        return times
    }

    @Test("the real match keeps its turn latency while wrong guesses arrive and wait out their delays")
    func matchKeepsItsPaceUnderGuessing() async throws {
        // A flat 1 s delay, so each guesser is refused about once a second.
        let throttle = PasscodeThrottle(firstDelay: .seconds(1), maximumDelay: .seconds(1))
        let (quietListener, quietHost, quietAcceptor) = try openHost(throttle: throttle)
        let baseline = try await guestTurnTimes(host: quietHost, port: quietListener.port)
        quietAcceptor.cancel(); quietListener.close()
        await quietHost.shutdown()

        let (listener, host, acceptor) = try openHost(throttle: throttle)
        defer { acceptor.cancel(); listener.close() }
        let guessers = GuessersBox()
        // Guessers: eight at a time (as many refusals as may wait), each guess a
        // fresh connection, for the whole match.
        // They send made-up proofs: an online guesser derives its keys on its own
        // machine, so only the host's side of the work is in this process.
        let port = listener.port
        let startGuessing = { @Sendable in Task {
            await withTaskGroup(of: Int.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        var refused = 0
                        while !Task.isCancelled {
                            guard let peer = try? await TCPProtocolPeer(port: port) else { continue }
                            peer.send(.hello(Self.hello("Eve")))
                            guard case .challenge? = await peer.next() else { continue }
                            peer.send(.hello(Self.hello("Eve", proof: (0..<48).map { _ in UInt8.random(in: 0...255) })))
                            if case .reject(let reason, _)? = await peer.next(), reason == .passcodeWrong || reason == .busy { refused += 1 }
                            peer.close()
                        }
                        return refused
                    }
                }
                return await group.reduce(0, +)
            }
        } }
        // The real guest joins first, then the guessing starts and the match is played.
        let underGuessing = try await guestTurnTimes(host: host, port: port) {
            guessers.task = startGuessing()
            try await Task.sleep(for: .milliseconds(300))  // let the guesses pile up
            #expect(await host.waitingProofCount > 0, "no guess was waiting its turn")
        }
        guessers.task?.cancel()
        let refused = await guessers.task?.value ?? 0

        func summary(_ times: [Duration]) -> String {
            let sorted = times.sorted()
            return "p50 \(sorted[sorted.count / 2]), max \(sorted.last ?? .zero) over \(times.count) turns"
        }
        print("passcode: guest turn round trip, quiet: \(summary(baseline)); under guessing: \(summary(underGuessing)); \(refused) guesses refused (passcodeWrong after the delay, or busy)")
        #expect(refused >= 4, "the guessers were not refused")
        // A refusal that slept on a thread (or in the host actor) would hold a turn up by a whole second.
        let slowest = underGuessing.max() ?? .zero
        #expect(slowest < .milliseconds(250), "a turn took \(slowest) under guessing")
        await host.shutdown()
    }
}

/// The guessing task, handed out of the closure that starts it.
final class GuessersBox: @unchecked Sendable {  // set once, by the test's own task, then read by it
    var task: Task<Int, Never>?
}
