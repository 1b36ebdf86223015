import Games
import Match
import Testing
@testable import Session

/// The handshake machines and the admission policy, without any I/O.
@Suite struct HandshakeProtocolTests {
    static func hello(versions: [UInt8] = [1], games: [GameVersion] = [GameVersion(id: "connect4", rulesVersion: 1)],
                      name: String = "Ada", matchID: MatchID? = nil, token: SeatToken? = nil) -> Hello {
        Hello(protocolVersions: versions, appVersion: "1", playerID: PlayerID(hex: String(repeating: "ab", count: 16))!,
              playerName: name, games: games, matchID: matchID, seatToken: token)
    }

    @Test func helloLeadsToEvaluationAndAnAdmissionToWelcome() throws {
        var machine = HostHandshake()
        let hello = Self.hello()
        #expect(machine.event(.message(.hello(hello))) == .evaluate(hello))
        #expect(machine.state == .deciding)
        let blob = MatchBlob.encode(MatchState(matchID: .random(), game: Connect4(),
                                               seats: [Seat(playerID: .random(), name: "H"), Seat(playerID: hello.playerID, name: "Ada")]))
        let welcome = Welcome(protocolVersion: 1, seat: 1, seatToken: .random(),
                              settings: SessionSettings(turnTimeoutSeconds: 0, heartbeatIntervalMilliseconds: 3000,
                                                        heartbeatTimeoutMilliseconds: 15000, confirmationTimeoutMilliseconds: 10000),
                              hostAppVersion: "1", matchBlob: blob)
        #expect(machine.decided(.welcome(welcome)) == .welcome(welcome))
        #expect(machine.state == .admitted)
        // The session owns the connection now; the handshake timer firing late changes nothing.
        #expect(machine.event(.timedOut) == .none)
    }

    @Test(arguments: [
        (HostHandshake.Event.message(.stateRequest(knownSequence: 0)), ReasonCode.protocolError),
        (.frameError(.unsupportedVersion(7)), .versionUnsupported),
        (.frameError(.oversize(0xFFFF_FFFF)), .protocolError),
        (.frameError(.unknownType(99)), .protocolError),
        (.messageError(.truncated(.hello, offset: 3)), .protocolError),
        (.timedOut, .handshakeTimeout),
    ])
    func problemsBeforeHelloAreRejectedThenClosed(event: HostHandshake.Event, reason: ReasonCode) {
        var machine = HostHandshake()
        guard case .rejectAndClose(.reject(let got, _), .rejected(let reported, _)) = machine.event(event), reported == got else {
            Issue.record("expected a REJECT for \(event)")
            return
        }
        #expect(got == reason)
        #expect(machine.state == .closed)
        #expect(machine.event(.message(.hello(Self.hello()))) == .none)  // nothing after a REJECT
    }

    @Test func strangersAreClosedWithoutAWordAndBrowsersGetText() {
        var stranger = HostHandshake()
        guard case .close(.dropped) = stranger.event(.frameError(.badMagic([0x16, 0x03]))) else {
            Issue.record("a TLS hello should be dropped")
            return
        }
        var browser = HostHandshake()
        guard case .answerHTTPAndClose = browser.event(.frameError(.httpRequest(method: "GET"))) else {
            Issue.record("a browser should get text")
            return
        }
    }

    static let policy = HostAdmissionPolicy(gameID: "connect4", rulesVersion: 1, seatAvailable: true)

    @Test(arguments: [
        (hello(versions: [3]), ReasonCode?.some(.versionUnsupported)),
        (hello(games: [GameVersion(id: "cube4", rulesVersion: 1)]), .gameUnknown),
        (hello(games: [GameVersion(id: "connect4", rulesVersion: 2)]), .rulesVersionMismatch),
        (hello(name: ""), .nameInvalid),
        (hello(matchID: .random()), .matchNotFound),
        (hello(versions: [3, 1], games: [GameVersion(id: "cube4", rulesVersion: 1), GameVersion(id: "connect4", rulesVersion: 1)]), nil),
    ])
    func admissionChecksInTheDocumentedOrder(hello: Hello, expected: ReasonCode?) {
        #expect(Self.policy.refusal(of: hello)?.0 == expected)
    }

    @Test func aFullMatchRefusesAndOnlyTheRightTokenTakesTheSeatBack() {
        let match = MatchID.random(), token = SeatToken.random()
        let full = HostAdmissionPolicy(gameID: "connect4", rulesVersion: 1, seatAvailable: false, currentMatch: (match, token))
        #expect(full.refusal(of: Self.hello())?.0 == .matchFull)
        #expect(full.refusal(of: Self.hello(matchID: match, token: .random()))?.0 == .badSeatToken)
        #expect(full.refusal(of: Self.hello(matchID: match))?.0 == .badSeatToken)
        #expect(full.refusal(of: Self.hello(matchID: match, token: token)) == nil)
    }

    // MARK: Guest

    static func welcome(for hello: Hello, seat: SeatIndex = 1, game: any Game = Connect4(), version: UInt8 = 1) -> Welcome {
        var seats = [Seat(playerID: .random(), name: "Host"), Seat(playerID: hello.playerID, name: hello.playerName)]
        if seat == 0 { seats.reverse() }
        let state = MatchState(matchID: .random(), game: game, seats: seats)
        return Welcome(protocolVersion: version, seat: seat, seatToken: .random(),
                       settings: SessionSettings(turnTimeoutSeconds: 0, heartbeatIntervalMilliseconds: 3000,
                                                 heartbeatTimeoutMilliseconds: 15000, confirmationTimeoutMilliseconds: 10000),
                       hostAppVersion: "1", matchBlob: MatchBlob.encode(state))
    }

    @Test func theGuestSendsHelloAndAcceptsAFittingWelcome() {
        let hello = Self.hello()
        var machine = GuestHandshake(hello: hello)
        guard case .send(.hello(hello)) = machine.start() else { Issue.record("no HELLO"); return }
        guard case .joined(_, let state) = machine.event(.message(.welcome(Self.welcome(for: hello)))) else {
            Issue.record("not joined")
            return
        }
        #expect(state.seats[1].playerID == hello.playerID)
        #expect(machine.state == .joined)
    }

    @Test func aRejectIsFinal() {
        var machine = GuestHandshake(hello: Self.hello())
        _ = machine.start()
        guard case .fail(.rejected(.matchFull, "full")) = machine.event(.message(.reject(.matchFull, sentence: "full"))) else {
            Issue.record("expected the REJECT to fail the join")
            return
        }
        guard case .none = machine.event(.message(.welcome(Self.welcome(for: Self.hello())))) else {
            Issue.record("a WELCOME after a REJECT must be ignored")
            return
        }
    }

    @Test func welcomesThatDoNotFitAreRefused() {
        let hello = Self.hello()
        let wrongSeat = Self.welcome(for: hello, seat: 1)
        var seatMachine = GuestHandshake(hello: hello)
        _ = seatMachine.start()
        var misplaced = wrongSeat
        misplaced.seat = 0
        guard case .fail(.badWelcome) = seatMachine.event(.message(.welcome(misplaced))) else { Issue.record("seat"); return }

        var gameMachine = GuestHandshake(hello: hello)
        _ = gameMachine.start()
        guard case .fail(.badWelcome) = gameMachine.event(.message(.welcome(Self.welcome(for: hello, game: TicTacToe())))) else {
            Issue.record("game")
            return
        }

        var blobMachine = GuestHandshake(hello: hello)
        _ = blobMachine.start()
        var corrupt = wrongSeat
        corrupt.matchBlob[corrupt.matchBlob.count - 1] ^= 1
        guard case .fail(.badWelcome) = blobMachine.event(.message(.welcome(corrupt))) else { Issue.record("blob"); return }

        var versionMachine = GuestHandshake(hello: hello)
        _ = versionMachine.start()
        guard case .fail(.badWelcome) = versionMachine.event(.message(.welcome(Self.welcome(for: hello, version: 2)))) else {
            Issue.record("version")
            return
        }
    }

    @Test func aHostThatIsNotParlorOrSilentFailsTheJoin() {
        var notParlor = GuestHandshake(hello: Self.hello())
        _ = notParlor.start()
        guard case .fail(.notAParlorHost) = notParlor.event(.frameError(.badMagic(Array("SSH-".utf8)))) else {
            Issue.record("bad magic")
            return
        }
        var silent = GuestHandshake(hello: Self.hello())
        _ = silent.start()
        guard case .fail(.timedOut) = silent.event(.timedOut) else { Issue.record("timeout"); return }
    }
}

/// The liveness machine: heartbeats, silence, grace.
@Suite struct LivenessProtocolTests {
    let settings = Liveness.Settings(interval: .seconds(3), timeout: .seconds(15), grace: .seconds(120))

    @Test func heartbeatsGoOutEveryInterval() {
        let start = ContinuousClock.now
        var machine = Liveness(settings: settings, now: start)
        #expect(machine.tick(now: start + .seconds(1), lastHeard: start, open: true) == [])
        #expect(machine.tick(now: start + .seconds(3), lastHeard: start, open: true) == [.sendHeartbeat])
        #expect(machine.tick(now: start + .seconds(4), lastHeard: start, open: true) == [])
    }

    @Test func silenceIsNoticedAtTheTimeoutAndGraceEndsItOnce() {
        let start = ContinuousClock.now
        var machine = Liveness(settings: settings, now: start)
        #expect(!machine.tick(now: start + .seconds(14), lastHeard: start, open: true).contains(.peerSilent(wait: .seconds(120))))
        #expect(machine.tick(now: start + .seconds(15), lastHeard: start, open: true).contains(.peerSilent(wait: .seconds(120))))
        #expect(!machine.isPeerPresent)
        #expect(!machine.tick(now: start + .seconds(134), lastHeard: start, open: true).contains(.graceExpired))
        #expect(machine.tick(now: start + .seconds(135), lastHeard: start, open: true).contains(.graceExpired))
        #expect(machine.tick(now: start + .seconds(200), lastHeard: start, open: true) == [])
    }

    @Test func aPeerHeardAgainIsBack() {
        let start = ContinuousClock.now
        var machine = Liveness(settings: settings, now: start)
        _ = machine.tick(now: start + .seconds(16), lastHeard: start, open: true)
        #expect(machine.tick(now: start + .seconds(20), lastHeard: start + .seconds(19), open: true).contains(.peerBack))
        #expect(machine.isPeerPresent)
    }

    @Test func aClosedConnectionIsReportedAtOnce() {
        let start = ContinuousClock.now
        var machine = Liveness(settings: settings, now: start)
        #expect(machine.tick(now: start + .seconds(1), lastHeard: start, open: false) == [.peerDisconnected(wait: .seconds(120))])
        #expect(machine.tick(now: start + .seconds(121), lastHeard: start, open: false) == [.graceExpired])
    }
}
