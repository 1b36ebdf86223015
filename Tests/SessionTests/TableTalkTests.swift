import Dispatch
import Games
import Match
import ParlorTestSupport
import Testing
@testable import Session

/// Table talk (TALK, type 16, docs/PROTOCOL.md section 18): the codec, the
/// host's checks and rate limit, and a table of three where a line reaches
/// every side in the match's one order, interleaved with the moves.
@Suite("Table talk: TALK's codec, the host's checks and its relay in the match's order")
struct TableTalkTests {
    // MARK: codec

    static func roundTrip(_ talk: TalkMessage) throws -> Message {
        var decoder = FrameDecoder()
        decoder.append(Message.talk(talk).encoded)
        let frame = try #require(try decoder.next())
        return try Message.decode(frame)
    }

    @Test("every kind of TALK decodes to what was encoded")
    func roundTrips() throws {
        let said = TalkMessage.say(Array("hello, table".utf8))
        #expect(try Self.roundTrip(said) == .talk(said))
        let relayed = TalkMessage.relayed(TalkLine(role: .player, seat: 2, name: "Cy", text: "après toi ✨", afterSequence: 7))
        #expect(try Self.roundTrip(relayed) == .talk(relayed))
        let watcher = TalkMessage.relayed(TalkLine(role: .spectator, seat: nil, name: "Di", text: "nice", afterSequence: 0))
        #expect(try Self.roundTrip(watcher) == .talk(watcher))
        let refused = TalkMessage.refused(.talkTooFast, sentence: "Too many lines.")
        #expect(try Self.roundTrip(refused) == .talk(refused))
    }

    @Test("a said line's bytes reach the host as they are, so it can refuse them with a reason instead of closing")
    func saidBytesAreNotJudgedByTheCodec() throws {
        let raw: [UInt8] = [0x1B, 0x5B, 0x33, 0x31, 0x6D, 0xFF]  // ESC [31m and a byte that is not UTF-8
        #expect(try Self.roundTrip(.say(raw)) == .talk(.say(raw)))
    }

    @Test("a relayed line or refusal that breaks the rules is a malformed message, cut short anywhere too")
    func malformedTalkIsRefused() throws {
        let good = Message.talk(.relayed(TalkLine(role: .player, seat: 1, name: "Bo", text: "hi", afterSequence: 3))).payload
        for length in 0..<good.count {
            #expect(throws: MessageError.self) { try Message.decode(Frame(type: .talk, payload: Array(good.prefix(length)))) }
        }
        #expect(throws: MessageError.self) { try Message.decode(Frame(type: .talk, payload: good + [0])) }
        func mutated(_ index: Int, _ value: UInt8) -> [UInt8] { var bytes = good; bytes[index] = value; return bytes }
        #expect(throws: MessageError.self) { try Message.decode(Frame(type: .talk, payload: mutated(0, 4))) }  // kind 4
        #expect(throws: MessageError.self) { try Message.decode(Frame(type: .talk, payload: mutated(5, 2))) }  // role 2
        #expect(throws: MessageError.self) { try Message.decode(Frame(type: .talk, payload: mutated(6, 8))) }  // seat 8
        #expect(throws: MessageError.self) { try Message.decode(Frame(type: .talk, payload: mutated(5, 1))) }  // spectator with a seat
        // The text "hi" with an ESC in place of the "h".
        #expect(throws: MessageError.self) { try Message.decode(Frame(type: .talk, payload: mutated(good.count - 2, 0x1B))) }
        let escapeRefusal = Message.talk(.refused(.talkOff, sentence: "off\u{1B}[2J")).payload
        #expect(throws: MessageError.self) { try Message.decode(Frame(type: .talk, payload: escapeRefusal)) }
    }

    // MARK: checks

    @Test("the host's checks: 200 scalars pass, 201 do not; control characters, empty lines and bad UTF-8 are refused")
    func checks() {
        func reason(_ bytes: [UInt8]) -> ReasonCode? {
            if case .failure(let refusal) = TalkCheck.check(bytes) { return refusal.reason }
            return nil
        }
        #expect(reason(Array(String(repeating: "a", count: 200).utf8)) == nil)
        #expect(reason(Array(String(repeating: "🂡", count: 200).utf8)) == nil, "800 bytes of 4-byte scalars still pass")
        #expect(reason(Array(String(repeating: "a", count: 201).utf8)) == .talkTooLong)
        #expect(reason(Array("\u{1B}[31mred".utf8)) == .talkControlCharacter)
        #expect(reason(Array("tab\there".utf8)) == .talkControlCharacter)
        #expect(reason(Array("two\nlines".utf8)) == .talkControlCharacter)
        #expect(reason(Array("   ".utf8)) == .talkEmpty)
        #expect(reason([]) == .talkEmpty)
        #expect(reason([0x68, 0xC3]) == .talkNotUTF8)
        if case .failure(let refusal) = TalkCheck.check(Array(String(repeating: "a", count: 201).utf8)) {
            #expect(refusal.sentence == "The line is too long (201 characters; at most 200); it was not sent.")
        }
    }

    @Test("the rate limit: 5 lines at once, then one more every 2 s")
    func bucket() {
        let start = ContinuousClock.now
        var bucket = TalkBucket(now: start)
        func take(_ at: ContinuousClock.Instant) -> Bool { bucket.take(now: at) }
        for _ in 0..<5 { #expect(take(start)) }
        #expect(!take(start))
        #expect(!take(start + .milliseconds(1999)))
        #expect(take(start + .seconds(2)))
        #expect(!take(start + .seconds(2)))
        // A long silence saves up no more than 5.
        let later = start + .seconds(600)
        for _ in 0..<5 { #expect(take(later)) }
        #expect(!take(later))
    }

    // MARK: a table of three

    struct Table {
        let controllers: [MatchController]
        let locals: [LocalParticipant]
        let recorders: [EventRecorder]
        let hosted: HostedMatch
    }

    /// A dots-and-boxes table of three (Hostess, Bo, Cy) over in-memory links, every seat a local player.
    static func table(talk: Bool = true, persist: RemoteGuest.Persist? = nil) async throws -> Table {
        var configuration = HostConfiguration(gameID: "dots-and-boxes", hostName: "Hostess", hostPlayerID: .random(),
                                              timeouts: quickTimeouts, appVersion: "test")
        configuration.seats = 3
        configuration.talk = talk
        let host = try MatchHost(configuration: configuration)
        let (hosted, joined) = try await TableProtocolTests.fill(host, guests: ["Bo", "Cy"])
        if let persist { for guest in hosted.guests { guest.persistBeforeSending(asynchronously: persist) } }
        let (hostController, hostLocal) = hosted.makeController { LocalParticipant(playerID: $0) }
        var controllers = [hostController]
        var locals = [hostLocal]
        for match in joined {
            let (controller, local) = match.makeController { LocalParticipant(playerID: $0) }
            controllers.append(controller)
            locals.append(local)
        }
        let recorders = (0..<3).map { _ in EventRecorder() }
        for (recorder, controller) in zip(recorders, controllers) { await recorder.record(controller) }
        for controller in controllers { try await controller.start() }
        return Table(controllers: controllers, locals: locals, recorders: recorders, hosted: hosted)
    }

    /// Commits and talk in the order a side saw them: "move 0", "Bo after 1: hi".
    static func story(_ events: [MatchEvent]) -> [String] {
        events.compactMap { event in
            switch event {
            case .committed(let change, _): "move \(change.seat)"
            case .talk(let line): "\(line.name) after \(line.afterSequence): \(line.text)"
            default: nil
            }
        }
    }

    static func refusals(_ events: [MatchEvent]) -> [ReasonCode] {
        events.compactMap { if case .talkRefused(let refusal) = $0 { ReasonCode(rawValue: refusal.code) } else { nil } }
    }

    static func talkCount(_ events: [MatchEvent]) -> Int {
        events.filter { if case .talk = $0 { true } else { false } }.count
    }

    /// Plays the first legal move for `seat`, waiting until every side has committed it.
    static func move(_ table: Table, seat: Int) async throws {
        let state = await table.controllers[seat].state
        let move = try #require(state.game.legalMoves.first)
        guard case .committed = await table.locals[seat].play(move) else { Issue.record("seat \(seat)'s move was refused"); return }
        let sequence = state.sequence + 1
        for controller in table.controllers {
            let deadline = ContinuousClock.now + .seconds(5)
            while await controller.state.sequence < sequence, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        }
    }

    static func everyoneHeard(_ table: Table, _ count: Int) async -> Bool {
        for recorder in table.recorders where !(await recorder.waitUntil { talkCount($0) >= count }) { return false }
        return true
    }

    @Test("talk from one player reaches the other two, and its sender, in the match's order between the moves")
    func talkIsRelayedInOrder() async throws {
        let table = try await Self.table()
        try await Self.move(table, seat: 0)
        await table.controllers[1].say("hi all", seat: 1)
        #expect(await Self.everyoneHeard(table, 1))
        try await Self.move(table, seat: 1)
        await table.controllers[2].say("my turn", seat: 2)
        #expect(await Self.everyoneHeard(table, 2))
        await table.controllers[0].say("go on, Cy", seat: 0)
        #expect(await Self.everyoneHeard(table, 3))
        try await Self.move(table, seat: 2)
        for recorder in table.recorders { _ = await recorder.waitUntil { Self.story($0).count >= 6 } }
        let expected = ["move 0", "Bo after 1: hi all", "move 1", "Cy after 2: my turn", "Hostess after 2: go on, Cy", "move 2"]
        for (index, recorder) in table.recorders.enumerated() {
            let story = Self.story(await recorder.events)
            #expect(story == expected, "side \(index): \(story)")
        }
        for controller in table.controllers { await controller.fail(.connectionLost("test over")) }
    }

    @Test("a line said while the host still saves the change before it reaches every guest after that change")
    func talkWaitsForTheSaveOfTheChangeBeforeIt() async throws {
        // Each save takes 150 ms, so the push of a move is held back that long; a line said meanwhile must not overtake it.
        let slowSave: RemoteGuest.Persist = { _, then in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(150)) { then(nil) }
        }
        let table = try await Self.table(persist: slowSave)
        let state = await table.controllers[0].state
        let move = try #require(state.game.legalMoves.first)
        _ = await table.locals[0].play(move)
        await table.controllers[0].say("just moved", seat: 0)
        #expect(await Self.everyoneHeard(table, 1))
        for (index, recorder) in table.recorders.enumerated() {
            #expect(Self.story(await recorder.events) == ["move 0", "Hostess after 1: just moved"], "side \(index)")
        }
        for controller in table.controllers { await controller.fail(.connectionLost("test over")) }
    }

    @Test("a line with an escape code, one over 200 characters and the sixth line in a burst are refused to the sender alone")
    func badLinesAreRefusedAndNothingIsRelayed() async throws {
        let table = try await Self.table()
        await table.controllers[1].say("\u{1B}[2Jgone", seat: 1)
        await table.controllers[1].say(String(repeating: "x", count: 201), seat: 1)
        #expect(await table.recorders[1].waitUntil { Self.refusals($0).count >= 2 })
        #expect(Self.refusals(await table.recorders[1].events) == [.talkControlCharacter, .talkTooLong])
        // Two lines of the five were taken by the refused ones: three more pass, the next is too fast.
        for index in 0..<4 { await table.controllers[1].say("line \(index)", seat: 1) }
        #expect(await table.recorders[1].waitUntil { Self.refusals($0).count >= 3 })
        #expect(Self.refusals(await table.recorders[1].events).last == .talkTooFast)
        #expect(await Self.everyoneHeard(table, 3))
        try await Task.sleep(for: .milliseconds(200))
        for recorder in table.recorders {
            let events = await recorder.events
            #expect(Self.story(events) == ["Bo after 0: line 0", "Bo after 0: line 1", "Bo after 0: line 2"])
        }
        let others = [await table.recorders[0].events, await table.recorders[2].events]
        #expect(others.allSatisfy { Self.refusals($0).isEmpty })
        for controller in table.controllers { await controller.fail(.connectionLost("test over")) }
    }

    @Test("with talk turned off, every line is refused as talkOff, the host's own too, and nothing is relayed")
    func talkOff() async throws {
        let table = try await Self.table(talk: false)
        await table.controllers[2].say("anyone?", seat: 2)
        await table.controllers[0].say("no talking", seat: 0)
        #expect(await table.recorders[2].waitUntil { !Self.refusals($0).isEmpty })
        #expect(await table.recorders[0].waitUntil { !Self.refusals($0).isEmpty })
        #expect(Self.refusals(await table.recorders[2].events) == [.talkOff])
        let cyEvents = await table.recorders[2].events
        let sentence = cyEvents.compactMap { event -> String? in if case .talkRefused(let refusal) = event { refusal.sentence } else { nil } }
        #expect(sentence == [TableTalk.turnedOff])
        try await Task.sleep(for: .milliseconds(200))
        for recorder in table.recorders { #expect(Self.talkCount(await recorder.events) == 0) }
        for controller in table.controllers { await controller.fail(.connectionLost("test over")) }
    }

    @Test("a two-seat match with a protocol-1 guest has no talk: the host is told why, and nothing goes on the wire")
    func protocolOneGuest() async throws {
        var configuration = HostConfiguration(gameID: "connect4", hostName: "Hostess", hostPlayerID: .random(),
                                              timeouts: quickTimeouts, appVersion: "test")
        configuration.seats = 2
        let host = try MatchHost(configuration: configuration)
        let (guestEnd, hostEnd) = InMemoryByteStream.pair()
        await host.accept(hostEnd)
        let hello = TableProtocolTests.hello("Old", versions: [1], game: "connect4")
        let join = Task { try await Guest.join(over: guestEnd, hello: hello) }
        let hosted = try await host.waitForGuest()
        let joined = try await join.value
        let (hostController, _) = hosted.makeController { LocalParticipant(playerID: $0) }
        let (guestController, _) = joined.makeController { LocalParticipant(playerID: $0) }
        let hostEvents = EventRecorder()
        let guestEvents = EventRecorder()
        await hostEvents.record(hostController)
        await guestEvents.record(guestController)
        try await hostController.start()
        try await guestController.start()
        await hostController.say("hello?", seat: hosted.hostSeat)
        await guestController.say("hello?", seat: joined.seat)
        #expect(await hostEvents.waitUntil { !Self.refusals($0).isEmpty })
        #expect(await guestEvents.waitUntil { !Self.refusals($0).isEmpty })
        let hostSeen = await hostEvents.events
        let sentences = hostSeen.compactMap { event -> String? in if case .talkRefused(let refusal) = event { refusal.sentence } else { nil } }
        #expect(sentences == ["Old's parlor speaks protocol 1, which has no table talk."])
        #expect(Self.talkCount(await guestEvents.events) == 0)
        await hostController.fail(.connectionLost("test over"))
        await guestController.fail(.connectionLost("test over"))
    }
}
