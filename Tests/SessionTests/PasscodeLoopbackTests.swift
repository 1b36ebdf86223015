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

    init(port: UInt16) async throws {
        connection = try await TCPConnection.connect(host: "127.0.0.1", port: port)
        iterator = connection.events.makeAsyncIterator()
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
        let acceptor = Task { for await connection in listener.connections { await host.accept(connection.byteStream()) } }
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

    @Test("a wrong code is refused passcodeWrong only after the delay, which grows per address; the right code still works")
    func wrongCodeIsRefusedAfterTheDelay() async throws {
        let (listener, host, acceptor) = try openHost()
        defer { acceptor.cancel(); listener.close() }
        var delays: [Duration] = []
        for _ in 0..<2 {
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
        print("passcode: wrong-code refusals took \(delays) (throttle 1 s, doubling)")
        #expect(delays[0] >= .milliseconds(950) && delays[0] < .seconds(3), "first refusal after \(delays[0])")
        #expect(delays[1] >= .milliseconds(1950) && delays[1] < .seconds(4), "second refusal after \(delays[1])")
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
        let started = ContinuousClock.now
        thief.send(.hello(proved))
        guard case .reject(.passcodeWrong, _)? = await thief.next() else { Issue.record("the replayed proof was not refused"); return }
        #expect(ContinuousClock.now - started >= .milliseconds(950))
        real.close()
        await host.shutdown()
    }

    @Test("the real match keeps its pace while wrong guesses arrive and wait out their delays")
    func matchKeepsItsPaceUnderGuessing() async throws {
        // A flat 1 s delay, so each guesser is refused about once a second.
        let (listener, host, acceptor) = try openHost(throttle: PasscodeThrottle(firstDelay: .seconds(1), maximumDelay: .seconds(1)))
        defer { acceptor.cancel(); listener.close() }
        let joined = try await join(port: listener.port, code: Self.code)
        let hosted = try await host.waitForGuest()

        // Guessers: four at a time, each guess a fresh connection, for the whole match.
        let port = listener.port
        let guessing = Task {
            await withTaskGroup(of: Int.self) { group in
                for guesser in 0..<4 {
                    group.addTask {
                        var refused = 0
                        while !Task.isCancelled {
                            do {
                                _ = try await join(port: port, code: "GUESS\(guesser)", name: "Eve")
                            } catch {
                                if case .rejected? = error as? JoinError { refused += 1 }
                            }
                        }
                        return refused
                    }
                }
                return await group.reduce(0, +)
            }
        }
        try await Task.sleep(for: .milliseconds(300))  // let the guesses pile up
        #expect(await host.waitingRefusalCount > 0, "no wrong guess was waiting out its delay")

        // The whole match's time: every guest move waits for the host's CONFIRM.
        let (hostController, _) = hosted.makeController { BotParticipant(playerID: $0, strategy: TestStrategies.firstLegal) }
        let (guestController, _) = joined.makeController { BotParticipant(playerID: $0, strategy: TestStrategies.seeded(9)) }
        try await hostController.start()
        try await guestController.start()
        let started = ContinuousClock.now
        let final = await guestController.finished()
        let elapsed = ContinuousClock.now - started
        guessing.cancel()
        let refused = await guessing.value
        #expect(final.isEnded)
        #expect(final.stateHash == (await hostController.finished()).stateHash)
        let moves = final.moves.count
        print("passcode: a \(moves)-move match took \(elapsed) while \(refused) wrong guesses were refused")
        // A sleeping thread per refusal would stall the match by whole seconds; timers cost nothing.
        #expect(elapsed < .seconds(3), "the match took \(elapsed) under guessing")
        #expect(refused >= 4, "the guessers were not refused")
        await host.shutdown()
    }
}
