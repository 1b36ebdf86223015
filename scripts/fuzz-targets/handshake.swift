// Target `handshake`: what a host does with a new connection's first bytes
// (frames, HELLO, the HostHandshake state machine and HostAdmissionPolicy),
// and what a guest does with the host's answer (GuestHandshake and the
// WELCOME's match blob). No sockets: the state machines are pure.
//
// Input: one scenario byte (is the seat free, is there a match to resume,
// does the host need a passcode, is a proof checked at once, refused for
// want of a place, or first made to wait its turn), then the bytes a peer sends.
//
// Invariants: nothing traps; the host evaluates only HELLOs, at most one
// (two when it needs a passcode: one CHALLENGE per connection, and only then);
// a new guest is admitted by a coded host only with a proof that answers its
// CHALLENGE; every REJECT it sends is a valid message; any HELLO the host admits
// yields a WELCOME that the same guest accepts (otherwise that guest would
// hang or fail after being let in); a guest only joins a match with its own
// player in the seat it was given.
import Games
import Match
import Session

func fuzzOne(_ bytes: [UInt8]) {
    guard let scenario = bytes.first else { return }
    let stream = Array(bytes.dropFirst())
    let policy = HostAdmissionPolicy(gameID: "connect4", rulesVersion: GameCatalog.game(id: "connect4")?.rulesVersion ?? 1,
                                     seatAvailable: scenario & 1 == 0,
                                     currentMatch: scenario & 2 == 0 ? nil : (FixtureIDs.match, FixtureIDs.seatToken),
                                     passcode: scenario & 16 == 0 ? nil : fixturePasscodeKey.map { PasscodeGate(key: $0, turn: scenario & 32 != 0 ? .refused : scenario & 64 != 0 ? .notQueued : .due) })

    var events: [HostHandshake.Event] = []
    var decoder = FrameDecoder()
    decoder.append(stream)
    while true {
        do {
            guard let frame = try decoder.next() else { break }
            do { events.append(.message(try Message.decode(frame))) } catch { events.append(.messageError(error)) }
        } catch {
            events.append(.frameError(error))
            break
        }
    }
    events.append(scenario & 4 == 0 ? .peerClosed(nil) : .timedOut)

    hostSide(events, policy: policy, hostSeatFirst: scenario & 8 == 0)
    guestSide(events)
}

private func hostSide(_ events: [HostHandshake.Event], policy: HostAdmissionPolicy, hostSeatFirst: Bool) {
    var machine = HostHandshake()
    var evaluated = 0
    var challenges = 0
    for event in events {
        var action = machine.event(event)
        if case .evaluate(let hello) = action {
            evaluated += 1
            let sent: Hello?
            switch event {
            case .message(.hello(let hello)), .message(.watch(let hello)): sent = hello
            default: sent = nil
            }
            guard sent == hello else {
                fuzzCheck(false, "evaluated a HELLO that was not the event"); return
            }
            let decision = admission(for: hello, challenge: machine.challenge, policy: policy, hostSeatFirst: hostSeatFirst)
            action = machine.decided(decision)
            if case .waitForTurn = decision {
                // The proof's turn comes (the shell's timer): decide again, checking it.
                fuzzCheck(machine.state == .proofWaiting && action == .none, "a waiting proof left the machine \(machine.state)")
                var due = policy
                due.passcode?.turn = .due
                action = machine.decided(admission(for: hello, challenge: machine.challenge, policy: due, hostSeatFirst: hostSeatFirst))
            }
        }
        switch action {
        case .none, .evaluate:
            break
        case .send(let message):
            challenges += 1
            fuzzCheck(policy.passcode != nil, "an open host sent \(message.type)")
            fuzzCheck(machine.state == .challenged, "sent CHALLENGE but the machine is \(machine.state)")
            fuzzCheck(message == .challenge(fixtureChallenge), "sent \(message.type) instead of its CHALLENGE")
        case .rejectAndClose(let message, _):
            fuzzCheck(machine.state == .closed, "rejected but not closed")
            guard case .reject(let reason, _) = message else { fuzzCheck(false, "sent \(message.type) to reject"); return }
            // What the guest will read: the REJECT must decode, with its reason intact.
            let frame = try? FrameDecoder.decode(message.encoded[...])
            let decoded = frame.flatMap { try? Message.decode($0.0) }
            guard case .reject(let received, _) = decoded else { fuzzCheck(false, "the REJECT does not decode"); return }
            fuzzCheck(received == reason, "the REJECT's reason changed on the wire")
        case .spectate:
            // Section 17: only a WATCH is let in to watch, by a coded host only with a proof.
            fuzzCheck(machine.state == .admitted, "a spectator let in but the machine is \(machine.state)")
            guard case .message(.watch(let hello)) = event else { fuzzCheck(false, "watching without a WATCH"); return }
            fuzzCheck(hello.protocolVersions.contains(FrameFormat.tableVersion), "a spectator let in without protocol 2")
            if let gate = policy.passcode {
                fuzzCheck(gate.turn != .refused && gate.key.accepts(hello.passcodeProof, for: fixtureChallenge) && machine.challenge != nil,
                          "a coded host let a spectator in without a valid proof")
            }
        case .seat:
            // Protocol 2: seated at a table still filling; WELCOME comes when it is full.
            fuzzCheck(machine.state == .seated, "seated a guest but the machine is \(machine.state)")
        case .welcome(let welcome):
            fuzzCheck(machine.state == .admitted, "welcomed but not admitted")
            guard case .message(.hello(let hello)) = event else { fuzzCheck(false, "welcomed without a HELLO"); return }
            if let gate = policy.passcode, hello.matchID == nil {
                fuzzCheck(gate.turn != .refused && gate.key.accepts(hello.passcodeProof, for: fixtureChallenge) && machine.challenge != nil,
                          "a coded host admitted a new guest without a valid proof")
            }
            welcomeWorks(welcome, for: hello)
        case .answerHTTPAndClose, .close:
            fuzzCheck(machine.state == .closed, "closed the connection but the machine is \(machine.state)")
        }
    }
    fuzzCheck(challenges <= 1, "sent \(challenges) CHALLENGEs on one connection")
    fuzzCheck(evaluated <= 1 + challenges, "evaluated \(evaluated) HELLOs on one connection")
    fuzzCheck(![.awaitingHello, .challenged, .deciding, .proofWaiting].contains(machine.state), "the handshake never ended (\(machine.state))")
}

/// The passcode of coded scenarios, its key (derived once: PBKDF2 is slow on
/// purpose) and the challenge the host sends (a fixed nonce, so seeds can
/// carry a proof that answers it).
let fixturePasscode = "K7M-Q4P"
let fixturePasscodeKey = try? PasscodeKey(code: fixturePasscode, matchID: FixtureIDs.match)
let fixtureChallenge = PasscodeChallenge(matchID: FixtureIDs.match, hostNonce: Array(0xa0...0xaf))

/// The host's admission as MatchHost.admission(for:challenge:id:) builds it (a
/// private method of an actor, so this mirrors it; keep the two in step).
private func admission(for hello: Hello, challenge: PasscodeChallenge?, policy: HostAdmissionPolicy, hostSeatFirst: Bool) -> Admission {
    switch policy.verdict(on: hello, challenge: challenge) {
    case .admit: break
    case .refuse(let reason, let sentence): return .reject(reason, sentence)
    case .challenge: return .challenge(fixtureChallenge)
    case .waitForTurn: return .waitForTurn
    }
    if hello.watching {
        return hello.protocolVersions.contains(FrameFormat.tableVersion) ? .spectate : .reject(.versionUnsupported, "protocol 2")
    }
    let guestSeat = hostSeatFirst ? 1 : 0
    let hostID = hello.playerID == FixtureIDs.host ? FixtureIDs.seatToken : FixtureIDs.host
    var seats = [Seat(playerID: hostID, name: "Ada"), Seat(playerID: hello.playerID, name: hello.playerName)]
    if !hostSeatFirst { seats.reverse() }
    guard let game = GameCatalog.newGame(id: policy.gameID) else { return .reject(.gameUnknown, "no game") }
    let state = MatchState(matchID: FixtureIDs.match, game: game, seats: seats, turnTimeout: 60, now: 1_700_000_000_000)
    let version = FrameFormat.supportedVersions.first { hello.protocolVersions.contains($0) } ?? FrameFormat.version
    return .welcome(Welcome(protocolVersion: version, seat: guestSeat, seatToken: FixtureIDs.seatToken,
                            settings: SessionSettings(turnTimeoutSeconds: 60, heartbeatIntervalMilliseconds: 1000,
                                                      heartbeatTimeoutMilliseconds: 5000, confirmationTimeoutMilliseconds: 3000),
                            hostAppVersion: "0.1.0", matchBlob: MatchBlob.encode(state)))
}

/// An admitted guest must be able to read its WELCOME and join.
private func welcomeWorks(_ welcome: Welcome, for hello: Hello) {
    let bytes = Message.welcome(welcome).encoded
    guard let (frame, _) = try? FrameDecoder.decode(bytes[...]) else { fuzzCheck(false, "the WELCOME frame does not decode"); return }
    let message: Message
    do { message = try Message.decode(frame) } catch { fuzzCheck(false, "the WELCOME does not decode: \(error)"); return }
    fuzzCheck(message == .welcome(welcome), "the WELCOME changed on the wire")
    fuzzCheck((try? MatchBlob.decode(welcome.matchBlob)) != nil, "the host cannot read back the match it admitted to")
    var guest = GuestHandshake(hello: hello)
    _ = guest.start()
    switch guest.event(.message(message)) {
    case .joined(_, let state):
        fuzzCheck(state.seats[welcome.seat].playerID == hello.playerID, "joined into someone else's seat")
    case .fail(let error):
        fuzzCheck(false, "the host admitted a HELLO whose guest then refuses the WELCOME: \(error)")
    default:
        fuzzCheck(false, "the guest neither joined nor failed on a WELCOME")
    }
}

private func guestSide(_ events: [HostHandshake.Event]) {
    var guest = GuestHandshake(hello: fixtureGuestHello)
    _ = guest.start()
    for event in events {
        switch guest.event(event) {
        case .joined(let welcome, let state):
            fuzzCheck(guest.state == .joined, "joined but the machine is \(guest.state)")
            fuzzCheck(state.seats.indices.contains(welcome.seat), "joined a seat the match does not have")
            fuzzCheck(state.seats[welcome.seat].playerID == fixtureGuestHello.playerID, "joined into someone else's seat")
            // More than two seats only at protocol 2 (a table).
            fuzzCheck(state.seats.count == 2 || welcome.protocolVersion >= FrameFormat.tableVersion,
                      "joined a match of \(state.seats.count) seats at protocol \(welcome.protocolVersion)")
        case .seated(let seating):
            fuzzCheck(guest.state == .awaitingWelcome, "seated but the machine is \(guest.state)")
            fuzzCheck(seating.seats.count > 2, "seated at a table of \(seating.seats.count)")
        case .fail(let error):
            _ = error.description
            fuzzCheck(guest.state == .failed, "failed but the machine is \(guest.state)")
        case .watching:
            fuzzCheck(false, "a guest that sent HELLO took WATCHING")
        case .none, .send:
            break
        }
    }
    fuzzCheck(guest.state != .awaitingWelcome, "the guest is still waiting after the connection ended")
    spectatorSide(events)
}

/// A spectator's handshake on the same bytes: WATCHING is taken only at
/// protocol 2, with a blob that decodes (or none, before the match begins).
private func spectatorSide(_ events: [HostHandshake.Event]) {
    var spectator = GuestHandshake(hello: sampleWatch())
    guard case .send(.watch) = spectator.start() else { fuzzCheck(false, "a spectator did not start with WATCH"); return }
    for event in events {
        switch spectator.event(event) {
        case .watching(let welcome, let match):
            fuzzCheck(welcome.protocolVersion == FrameFormat.tableVersion, "watching at protocol \(welcome.protocolVersion)")
            fuzzCheck((match == nil) == welcome.matchBlob.isEmpty, "a WATCHING's blob and match disagree")
        case .joined:
            fuzzCheck(false, "a spectator joined a seat")
        case .fail, .seated, .none, .send:
            break
        }
    }
}

func fuzzSeeds() -> [(String, [UInt8])] {
    var seeds: [(String, [UInt8])] = []
    for (name, hello) in sampleHellos() {
        for scenario: UInt8 in [0, 1, 2, 3, 8] {
            seeds.append(("hello-\(name)-\(scenario)", [scenario] + Message.hello(hello).encoded))
        }
    }
    for sample in sampleMatches() where sample.state.sequence == 0 {
        seeds.append(("welcome-\(sample.name)", [0] + Message.welcome(sampleWelcome(sample.state)).encoded))
    }
    seeds.append(("reject", [4] + Message.reject(.matchFull, sentence: "The match on this host already has its players.").encoded))
    seeds.append(("turn-first", [0] + Message.heartbeat(senderTime: 1).encoded))
    seeds.append(("http", [0] + Array("GET / HTTP/1.1\r\n\r\n".utf8)))
    seeds.append(("version-2", [0, 0x50, 0x4C, 2, 1, 0, 0, 0, 0]))
    // A coded host: HELLO, then the HELLO with a proof that answers the fixed challenge.
    if let key = fixturePasscodeKey, let proof = try? key.proof(for: fixtureChallenge, guestNonce: Array(0xb0...0xbf)) {
        var proved = fixtureGuestHello
        proved.passcodeProof = proof
        for scenario: UInt8 in [16, 17, 18, 48] {
            seeds.append(("passcode-\(scenario)", [scenario] + Message.hello(fixtureGuestHello).encoded + Message.hello(proved).encoded))
        }
        seeds.append(("passcode-wrong", [16] + Message.hello(fixtureGuestHello).encoded
                      + Message.hello(Hello(appVersion: "0.1.0", playerID: FixtureIDs.guest, playerName: "Eve",
                                            passcodeProof: Array(repeating: 7, count: 48))).encoded))
    }
    seeds.append(("challenge", [0] + Message.challenge(fixtureChallenge).encoded))
    // Spectators (section 17): a WATCH at an open, a full and a coded host; the host's WATCHING.
    for scenario: UInt8 in [0, 1, 16] {
        seeds.append(("watch-\(scenario)", [scenario] + Message.watch(sampleWatch()).encoded))
    }
    if let key = fixturePasscodeKey, let proof = try? key.proof(for: fixtureChallenge, guestNonce: Array(0xb0...0xbf)) {
        var proved = sampleWatch()
        proved.passcodeProof = proof
        seeds.append(("watch-passcode", [16] + Message.watch(sampleWatch()).encoded + Message.watch(proved).encoded))
    }
    for sample in sampleMatches().prefix(3) {
        seeds.append(("watching-\(sample.name)", [0] + Message.watching(sampleWatching(sample.state)).encoded))
    }
    seeds.append(("watching-before", [0] + Message.watching(sampleWatching(nil)).encoded))
    return seeds
}
