import Foundation
import Games
import Match
import ParlorTestSupport
import Testing
@testable import Session

/// The worked examples of docs/PROTOCOL.md, generated from the real encoders.
///
/// Each example is a list of (bytes, field) segments; the document shows them
/// one field a line. `PRINT_PROTOCOL_EXAMPLES=1 swift test --filter ProtocolDocTests`
/// prints the blocks to paste after a format change.
enum ProtocolExamples {
    typealias Segment = (bytes: [UInt8], field: String)

    static let matchID = MatchID(hex: "00112233445566778899aabbccddeeff")!
    static let ada = PlayerID(hex: String(repeating: "11", count: 16))!
    static let bo = PlayerID(hex: String(repeating: "22", count: 16))!
    static let token = SeatToken(hex: "5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e")!
    /// 2023-11-14T22:13:20Z in ms, so the deadline after the move is a round number.
    static let now: Int64 = 1_700_000_000_000

    static var initial: MatchState {
        MatchState(matchID: matchID, game: Connect4(), seats: [Seat(playerID: ada, name: "Ada"), Seat(playerID: bo, name: "Bo")],
                   turnTimeout: 60, now: now)
    }

    static var afterOneMove: MatchState {
        // Ada (seat 1, index 0) drops a piece into column 4 (raw value 3).
        (try? initial.applying(.move(Move(3), by: 0), now: now + 5_000)) ?? initial
    }

    static var afterBoQuits: MatchState {
        // Bo (index 1) quits after Ada's move, 2 s later: both seats are done, Bo quit, Ada won.
        (try? afterOneMove.applying(.quit(1), now: now + 7_000)) ?? afterOneMove
    }

    /// After Ada's move, Bo plays column 4 too (raw 3), 4 s later, with a message (format 4).
    static var withAMessage: MatchState {
        let message = try? TurnMessage("Nice one, Ada")
        return (try? afterOneMove.applying(.move(Move(3), by: 1, message: message), now: now + 9_000)) ?? afterOneMove
    }

    /// The seed of the format-3 example, as the host drew it.
    static let seed: UInt64 = 0x0123_4567_89ab_cdef

    /// Ada and Bo's match of a game with chance (the test suite's Seeded Nim,
    /// heaps dealt from the seed), after Ada takes one from the first heap (raw move 0).
    static var seeded: MatchState {
        SeededNim.register()
        let start = MatchState(matchID: matchID, gameType: SeededNim.self, seats: [Seat(playerID: ada, name: "Ada"), Seat(playerID: bo, name: "Bo")],
                               seed: seed, turnTimeout: 60, now: now)
        return (try? start.applying(.move(Move(0), by: 0), now: now + 5_000)) ?? start
    }

    static var hello: Hello {
        Hello(protocolVersions: [1], appVersion: "0.1.0", playerID: bo, playerName: "Bo",
              games: [GameVersion(id: "connect4", rulesVersion: 1)])
    }

    /// Bo coming back to match 0011…eeff with the seat token of the WELCOME below.
    static var resumeHello: Hello {
        var hello = hello
        hello.matchID = matchID
        hello.seatToken = token
        return hello
    }

    /// The passcode of the examples, as `parlor host --code` would make one up.
    static let passcode = "K7M-Q4P"
    static let hostNonce: [UInt8] = Array(0xa0...0xaf)
    static let guestNonce: [UInt8] = Array(0xb0...0xbf)
    static var challenge: PasscodeChallenge { PasscodeChallenge(matchID: matchID, hostNonce: hostNonce) }
    static var passcodeKey: PasscodeKey? { try? PasscodeKey(code: passcode, matchID: matchID) }

    /// Bo's second HELLO, answering the CHALLENGE below with the code K7M-Q4P.
    static var passcodeHello: Hello {
        var hello = hello
        hello.passcodeProof = (try? passcodeKey?.proof(for: challenge, guestNonce: guestNonce)) ?? []
        return hello
    }

    static var welcome: Welcome {
        Welcome(protocolVersion: 1, seat: 1, seatToken: token,
                settings: SessionSettings(turnTimeoutSeconds: 60, heartbeatIntervalMilliseconds: 3000,
                                          heartbeatTimeoutMilliseconds: 15000, confirmationTimeoutMilliseconds: 10000),
                hostAppVersion: "0.1.0", matchBlob: MatchBlob.encode(initial))
    }

    // A table of four (protocol 2, section 16): Ada hosts dots and boxes with an
    // easy bot in the last seat; Bo takes seat index 1, Cy seat index 2.
    static let cy = PlayerID(hex: String(repeating: "33", count: 16))!
    static let bot = PlayerID(hex: String(repeating: "44", count: 16))!
    static let cyToken = SeatToken(hex: "6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f")!

    static var tableHello: Hello {
        Hello(protocolVersions: [2, 1], appVersion: "0.2.0", playerID: bo, playerName: "Bo",
              games: [GameVersion(id: "dots-and-boxes", rulesVersion: 1)])
    }

    /// What Bo is told when it sits down: three of four seats taken.
    static var tableSeating: TableSeating {
        TableSeating(yourSeat: 1, heartbeatIntervalMilliseconds: 3000, heartbeatTimeoutMilliseconds: 15000,
                     seats: [.init(kind: .host, name: "Ada"), .init(kind: .guest, name: "Bo"), .init(kind: .free, name: ""),
                             .init(kind: .bot, name: "Easy bot")])
    }

    static var tableStart: MatchState {
        MatchState(matchID: matchID, game: DotsAndBoxes(seats: 4),
                   seats: [Seat(playerID: ada, name: "Ada"), Seat(playerID: bo, name: "Bo"), Seat(playerID: cy, name: "Cy"),
                           Seat(playerID: bot, name: "Easy bot")],
                   turnTimeout: 0, now: now)
    }

    /// Cy's WELCOME when it takes the last free seat: protocol 2, its own seat and token.
    static var tableWelcome: Welcome {
        Welcome(protocolVersion: 2, seat: 2, seatToken: cyToken,
                settings: SessionSettings(turnTimeoutSeconds: 0, heartbeatIntervalMilliseconds: 3000,
                                          heartbeatTimeoutMilliseconds: 15000, confirmationTimeoutMilliseconds: 10000),
                hostAppVersion: "0.2.0", matchBlob: MatchBlob.encode(tableStart))
    }

    /// Wes asks to watch Ada and Bo's connect4 match (section 17).
    static var watchHello: Hello {
        var hello = Hello(protocolVersions: [2, 1], appVersion: "0.2.0", playerID: PlayerID(hex: String(repeating: "77", count: 16))!,
                          playerName: "Wes", games: [GameVersion(id: "connect4", rulesVersion: 1)])
        hello.watching = true
        return hello
    }

    /// The host's answer, one move into the match, with Wes the second spectator.
    static var watching: SpectatorWelcome {
        SpectatorWelcome(protocolVersion: 2, heartbeatIntervalMilliseconds: 3000, heartbeatTimeoutMilliseconds: 15000,
                         hostAppVersion: "0.2.0", watching: 2, matchBlob: MatchBlob.encode(afterOneMove))
    }

    /// Every example by name, in document order.
    static var all: [(name: String, segments: [Segment])] {
        let blob = MatchBlob.encode(afterOneMove)
        return [
            ("blob", blobSegments(blob)),
            ("blob-quit", blobSegments(MatchBlob.encode(afterBoQuits))),
            ("blob-seeded", blobSegments(MatchBlob.encode(seeded))),
            ("blob-message", blobSegments(MatchBlob.encode(withAMessage))),
            ("hello", frame(.hello(hello))),
            ("welcome", frame(.welcome(welcome))),
            ("turn", frame(.turn(sequence: 1, blob: blob))),
            ("confirm", frame(.confirm(sequence: 1, stateHash: afterOneMove.stateHash, deadline: afterOneMove.deadline))),
            ("turn-rejected", frame(.turnRejected(sequence: 1, reason: .replayed, sentence: "Change 1 was already committed."))),
            ("reject", frame(.reject(.matchFull, sentence: "The match is full."))),
            ("state-request", frame(.stateRequest(knownSequence: 0))),
            ("heartbeat", frame(.heartbeat(senderTime: UInt64(now)))),
            ("goodbye", frame(.goodbye(.goodbyeDesync, sentence: "hash differs", finalBlob: []))),
            ("hello-resume", frame(.hello(resumeHello))),
            ("goodbye-leaving", frame(.goodbye(.goodbyeLeaving, sentence: "leaving, may resume", finalBlob: []))),
            ("rematch", frame(.rematch(.offer))),
            ("passcode-key", [(passcodeKey?.bytes ?? [], "key: PBKDF2-HMAC-SHA256, 100 000 iterations, 32 bytes")]),
            ("challenge", frame(.challenge(challenge))),
            ("hello-passcode", frame(.hello(passcodeHello))),
            ("hello-table", frame(.hello(tableHello))),
            ("table", frame(.table(tableSeating))),
            ("welcome-table", frame(.welcome(tableWelcome))),
            ("seat-away", frame(.seat(SeatPresence(seat: 2, away: true, graceLeftMilliseconds: 60_000)))),
            ("seat-back", frame(.seat(SeatPresence(seat: 2, away: false, graceLeftMilliseconds: 0)))),
            ("reject-version", frame(.reject(.versionUnsupported,
                                             sentence: "This table of 4 needs parlor protocol 2; yours speaks 1: update parlor."))),
            ("talk-say", frame(.talk(.say(Array("nice box!".utf8))))),
            ("talk-relayed", frame(.talk(.relayed(TalkLine(role: .player, seat: 1, name: "Bo", text: "nice box!", afterSequence: 5))))),
            ("talk-refused", frame(.talk(.refused(.talkControlCharacter,
                                                  sentence: "The line holds a control character (an escape code, a tab or a newline); it was not sent.")))),
            ("watch", frame(.watch(watchHello))),
            ("watching", frame(.watching(watching))),
            ("turn-rejected-spectator", frame(.turnRejected(sequence: 2, reason: .spectatorCannotMove,
                                                            sentence: "Spectators cannot change the match: you are watching."))),
        ]
    }

    static func u16(_ value: UInt16) -> [UInt8] { var w = ByteWriter(); w.write(value); return w.bytes }
    static func u32(_ value: UInt32) -> [UInt8] { var w = ByteWriter(); w.write(value); return w.bytes }
    static func u64(_ value: UInt64) -> [UInt8] { var w = ByteWriter(); w.write(value); return w.bytes }

    static func blobSegments(_ blob: [UInt8]) -> [Segment] {
        var segments: [Segment] = []
        var offset = 0
        func take(_ count: Int, _ field: String) {
            segments.append((Array(blob[offset..<offset + count]), field))
            offset += count
        }
        take(4, "magic \"PMB\\0\"")
        let format = Int(blob[offset]) << 8 | Int(blob[offset + 1])
        take(2, "format \(format)")
        take(16, "match id")
        let gameLength = Int(blob[offset])
        let game = String(decoding: blob[offset + 1..<offset + 1 + gameLength], as: UTF8.self)
        take(1 + gameLength, "game id, u8 length + \"\(game)\"")
        take(2, "rules version \(Int(blob[offset]) << 8 | Int(blob[offset + 1]))")
        if format == 3 { take(8, "seed, u64 (format 3)") }
        if format >= 4 {
            let seeded = blob[offset] == 1
            take(1, "seed flag \(blob[offset]) (format 4): " + (seeded ? "a seed follows" : "no seed"))
            if seeded { take(8, "seed, u64") }
        }
        let seats = Int(blob[offset])
        take(1, "seat count \(seats)")
        for index in 0..<seats {
            take(16, "seat \(index): player id")
            let nameLength = Int(blob[offset])
            take(1 + nameLength, "seat \(index): name, u8 length + UTF-8")
            take(1, "seat \(index): status \(blob[offset]) \(SeatStatus(rawValue: blob[offset]).map { "\($0)" } ?? "?")")
            take(1, "seat \(index): outcome \(blob[offset]) \(Outcome(rawValue: blob[offset]).map { "\($0)" } ?? "?")")
            if format >= 2 {
                let left = Int(blob[offset]) << 8 | Int(blob[offset + 1])
                take(2, "seat \(index): left after " + (left == 0xFFFF ? "FFFF (has not left)" : "\(left) moves"))
            }
        }
        let sequence = blob[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        take(4, "sequence \(sequence)")
        let timeout = blob[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        take(4, timeout == 0 ? "turn timeout 0 (none)" : "turn timeout \(timeout) s")
        let deadline = blob[offset..<offset + 8].reduce(0) { $0 << 8 | Int64($1) }
        take(8, "deadline \(deadline) ms since 1970")
        let moves = Int(blob[offset]) << 8 | Int(blob[offset + 1])
        take(2, "move count \(moves)")
        for index in 0..<moves { take(3, "move \(index): seat u8, move u16") }
        if format >= 4 {
            let messages = Int(blob[offset]) << 8 | Int(blob[offset + 1])
            take(2, "message count \(messages) (format 4)")
            for _ in 0..<messages {
                take(2, "message's move index \(Int(blob[offset]) << 8 | Int(blob[offset + 1]))")
                let length = Int(blob[offset])
                take(1 + length, "message, u8 length + UTF-8 \"\(String(decoding: blob[offset + 1..<offset + 1 + length], as: UTF8.self))\"")
            }
        }
        take(8, "state hash, FNV-1a 64")
        return segments
    }

    static func frame(_ message: Message) -> [Segment] {
        let payload = message.payload
        var segments: [Segment] = [
            (FrameFormat.magic, "magic \"PL\""),
            ([FrameFormat.version], "protocol version 1"),
            ([message.type.rawValue], "type \(message.type.rawValue) \(message.type)"),
            (u32(UInt32(payload.count)), "payload length \(payload.count)"),
        ]
        switch message {
        case .hello(let hello), .watch(let hello):
            let versions = hello.protocolVersions.map(String.init).joined(separator: ", ")
            segments += [
                ([UInt8(hello.protocolVersions.count)] + hello.protocolVersions,
                 "\(hello.protocolVersions.count) protocol version\(hello.protocolVersions.count == 1 ? "" : "s"): \(versions)"),
                ([UInt8(hello.appVersion.utf8.count)] + Array(hello.appVersion.utf8), "app version \"\(hello.appVersion)\""),
                (hello.playerID.bytes, "player id"),
                ([UInt8(hello.playerName.utf8.count)] + Array(hello.playerName.utf8), "player name \"\(hello.playerName)\""),
                ([1], "1 game"),
                ([UInt8(hello.games[0].id.utf8.count)] + Array(hello.games[0].id.utf8), "game id \"\(hello.games[0].id)\""),
                (u16(hello.games[0].rulesVersion), "rules version \(hello.games[0].rulesVersion)"),
                hello.matchID.map { ($0.bytes, "match id to resume") }
                    ?? (Array(repeating: 0, count: 16), hello.watching ? "match id: none (a spectator names none)" : "match id: none (new match)"),
                hello.seatToken.map { ($0.bytes, "seat token from the WELCOME") }
                    ?? (Array(repeating: 0, count: 16), hello.watching ? "seat token: none (a spectator holds none)" : "seat token: none"),
            ]
            if hello.passcodeProof.isEmpty {
                segments.append(([0], "passcode proof: 0 bytes"))
            } else {
                segments += [([UInt8(hello.passcodeProof.count)], "passcode proof: \(hello.passcodeProof.count) bytes"),
                             (Array(hello.passcodeProof.prefix(16)), "proof: guest nonce"),
                             (Array(hello.passcodeProof.dropFirst(16)), "proof: HMAC-SHA256(key, label ‖ match id ‖ host nonce ‖ guest nonce)")]
            }
        case .welcome(let welcome):
            let ordinals = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth"]
            let timeout = welcome.settings.turnTimeoutSeconds
            segments += [
                ([welcome.protocolVersion], "protocol version \(welcome.protocolVersion)"),
                ([UInt8(welcome.seat)], "your seat: index \(welcome.seat) (the \(ordinals[welcome.seat % 8]) seat)"),
                (welcome.seatToken.bytes, "seat token"),
                (u32(timeout), timeout == 0 ? "turn timeout 0 (none)" : "turn timeout \(timeout) s"),
                (u32(3000), "heartbeat interval 3000 ms"),
                (u32(15000), "heartbeat timeout 15000 ms"),
                (u32(10000), "confirmation timeout 10000 ms"),
                ([UInt8(welcome.hostAppVersion.utf8.count)] + Array(welcome.hostAppVersion.utf8), "host app version \"\(welcome.hostAppVersion)\""),
                (u32(UInt32(welcome.matchBlob.count)), "blob length \(welcome.matchBlob.count)"),
            ]
            segments += blobSegments(welcome.matchBlob).map { ($0.bytes, "blob: " + $0.field) }
        case .turn(let sequence, let blob):
            segments += [(u32(sequence), "sequence \(sequence)"), (u32(UInt32(blob.count)), "blob length \(blob.count)")]
            segments += blobSegments(blob).map { ($0.bytes, "blob: " + $0.field) }
        case .confirm(let sequence, let hash, let deadline):
            segments += [(u32(sequence), "sequence \(sequence)"), (u64(hash), "state hash"),
                         (u64(UInt64(bitPattern: deadline)), "deadline, ms since 1970")]
        case .turnRejected(let sequence, let reason, let sentence):
            segments += [(u32(sequence), "sequence \(sequence)"), (u16(reason.rawValue), "reason \(reason.rawValue) \(reason)"),
                         (u16(UInt16(sentence.utf8.count)) + Array(sentence.utf8), "sentence, u16 length + UTF-8")]
        case .reject(let reason, let sentence):
            segments += [(u16(reason.rawValue), "reason \(reason.rawValue) \(reason)"),
                         (u16(UInt16(sentence.utf8.count)) + Array(sentence.utf8), "sentence, u16 length + UTF-8")]
        case .stateRequest(let known):
            segments += [(u32(known), "known sequence \(known)")]
        case .heartbeat(let time):
            segments += [(u64(time), "sender time, ms since 1970")]
        case .goodbye(let reason, let sentence, let blob):
            segments += [(u16(reason.rawValue), "reason \(reason.rawValue) \(reason)"),
                         (u16(UInt16(sentence.utf8.count)) + Array(sentence.utf8), "sentence, u16 length + UTF-8"),
                         (u32(UInt32(blob.count)), "final blob length 0 (none)")]
        case .rematch(let word):
            segments += [([word.rawValue], "word \(word.rawValue) \(word)")]
        case .challenge(let challenge):
            segments += [([challenge.method], "method 1: PBKDF2-HMAC-SHA256 key, HMAC-SHA256 proof"),
                         (challenge.matchID.bytes, "match id (the match a new guest joins)"),
                         (challenge.hostNonce, "host nonce, fresh for this connection")]
        case .table(let table):
            let kinds: [TableSeating.Kind: String] = [.free: "free", .host: "host", .guest: "guest", .bot: "bot"]
            segments += [([UInt8(table.yourSeat)], "your seat: index \(table.yourSeat)"),
                         (u32(table.heartbeatIntervalMilliseconds), "heartbeat interval \(table.heartbeatIntervalMilliseconds) ms"),
                         (u32(table.heartbeatTimeoutMilliseconds), "heartbeat timeout \(table.heartbeatTimeoutMilliseconds) ms"),
                         ([UInt8(table.seats.count)], "seat count \(table.seats.count)")]
            for (index, place) in table.seats.enumerated() {
                segments.append(([place.kind.rawValue], "seat \(index): kind \(place.kind.rawValue) \(kinds[place.kind] ?? "?")"))
                segments.append(([UInt8(place.name.utf8.count)] + Array(place.name.utf8),
                                 place.name.isEmpty ? "seat \(index): name, empty" : "seat \(index): name \"\(place.name)\""))
            }
        case .watching(let welcome):
            segments += [([welcome.protocolVersion], "protocol version \(welcome.protocolVersion)"),
                         (u32(welcome.heartbeatIntervalMilliseconds), "heartbeat interval \(welcome.heartbeatIntervalMilliseconds) ms"),
                         (u32(welcome.heartbeatTimeoutMilliseconds), "heartbeat timeout \(welcome.heartbeatTimeoutMilliseconds) ms"),
                         ([UInt8(welcome.hostAppVersion.utf8.count)] + Array(welcome.hostAppVersion.utf8),
                          "host app version \"\(welcome.hostAppVersion)\""),
                         (u16(welcome.watching), "spectators watching \(welcome.watching), this one included"),
                         (u32(UInt32(welcome.matchBlob.count)), "blob length \(welcome.matchBlob.count)")]
            segments += blobSegments(welcome.matchBlob).map { ($0.bytes, "blob: " + $0.field) }
        case .seat(let presence):
            segments += [([UInt8(presence.seat)], "seat index \(presence.seat)"),
                         ([presence.away ? 1 : 0], presence.away ? "presence 1 away" : "presence 0 back"),
                         (u32(presence.graceLeftMilliseconds),
                          presence.away ? "grace left \(presence.graceLeftMilliseconds) ms" : "grace left 0 (back)")]
        case .talk(.say(let bytes)):
            segments += [([1], "kind 1 say (guest → host)"),
                         (u16(UInt16(bytes.count)) + bytes, "line, u16 length + UTF-8 \"\(String(decoding: bytes, as: UTF8.self))\"")]
        case .talk(.relayed(let line)):
            segments += [([2], "kind 2 relayed (host → every guest)"),
                         (u32(line.afterSequence), "after change \(line.afterSequence)"),
                         ([line.role.rawValue], "role \(line.role.rawValue) \(line.role)"),
                         ([UInt8(line.seat ?? 0xFF)], line.seat.map { "seat index \($0)" } ?? "seat FF (a spectator has none)"),
                         ([UInt8(line.name.utf8.count)] + Array(line.name.utf8), "name \"\(line.name)\""),
                         (u16(UInt16(line.text.utf8.count)) + Array(line.text.utf8), "text, u16 length + UTF-8 \"\(line.text)\"")]
        case .talk(.refused(let reason, let sentence)):
            segments += [([3], "kind 3 refused (host → the sender)"),
                         (u16(reason.rawValue), "reason \(reason.rawValue) \(reason)"),
                         (u16(UInt16(sentence.utf8.count)) + Array(sentence.utf8), "sentence, u16 length + UTF-8")]
        default:
            segments += [(payload, "payload")]
        }
        return segments
    }

    /// The markdown block for one example, as it appears in the document.
    static func block(_ name: String, _ segments: [Segment]) -> String {
        var lines = ["```hex example=\(name)"]
        for segment in segments {
            var chunks: [[UInt8]] = []
            var rest = segment.bytes[...]
            while !rest.isEmpty { chunks.append(Array(rest.prefix(16))); rest = rest.dropFirst(16) }
            for (index, chunk) in chunks.enumerated() {
                let hex = chunk.map { String(format: "%02x", $0) }.joined(separator: " ")
                let padded = hex.padding(toLength: 47, withPad: " ", startingAt: 0)
                lines.append(index == 0 ? "\(padded)  # \(segment.field)" : hex)
            }
        }
        lines.append("```")
        return lines.joined(separator: "\n")
    }
}

@Suite struct ProtocolDocTests {
    static var documentURL: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/PROTOCOL.md")
    }

    /// The hex examples of the document by name: bytes with comments stripped.
    static func documentExamples() throws -> [String: [UInt8]] {
        let text = try String(contentsOf: documentURL, encoding: .utf8)
        var examples: [String: [UInt8]] = [:]
        var current: String?
        var hex = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```hex example=") {
                current = String(line.dropFirst("```hex example=".count))
                hex = ""
            } else if line.hasPrefix("```"), let name = current {
                examples[name] = [UInt8](hexString: hex)
                current = nil
            } else if current != nil {
                hex += line.split(separator: "#", maxSplits: 1).first.map { $0.filter { !$0.isWhitespace } } ?? ""
            }
        }
        return examples
    }

    @Test func printExamplesWhenAsked() {
        guard ProcessInfo.processInfo.environment["PRINT_PROTOCOL_EXAMPLES"] != nil else { return }
        for example in ProtocolExamples.all { print(ProtocolExamples.block(example.name, example.segments) + "\n") }
    }

    @Test func everyDocumentedExampleIsWhatTheEncoderWrites() throws {
        let documented = try Self.documentExamples()
        for example in ProtocolExamples.all {
            let bytes = example.segments.flatMap(\.bytes)
            #expect(documented[example.name] == bytes, "example '\(example.name)' in docs/PROTOCOL.md is out of date")
        }
    }

    @Test func everyDocumentedExampleDecodes() throws {
        let documented = try Self.documentExamples()
        let blob = try #require(documented["blob"])
        let state = try MatchBlob.decode(blob)
        #expect(state.moves == [PlayedMove(seat: 0, move: Move(3))])
        #expect(state.seats.map(\.name) == ["Ada", "Bo"])
        let quit = try MatchBlob.decode(try #require(documented["blob-quit"]))
        // A seat that quits (or times out) in a two-seat match carries status 2 done, not 1 left (section 5).
        #expect(quit.seats.map(\.status) == [.done, .done])
        #expect(quit.seats.map(\.outcome) == [.won, .quit])
        #expect(quit.isEnded && quit.deadline == 0)
        SeededNim.register()
        let seeded = try MatchBlob.decode(try #require(documented["blob-seeded"]))
        #expect(seeded.seed == ProtocolExamples.seed && seeded.moves == [PlayedMove(seat: 0, move: Move(0))])
        #expect(seeded.replayPositions.first?.game(as: SeededNim.self)?.heaps == SeededNim.heaps(dealtFrom: ProtocolExamples.seed))
        let message = try MatchBlob.decode(try #require(documented["blob-message"]))
        #expect(message.moves.map(\.message?.text) == [nil, "Nice one, Ada"] && message.message?.text == "Nice one, Ada")
        for (name, bytes) in documented where !name.hasPrefix("blob") && name != "passcode-key" {
            var decoder = FrameDecoder()
            decoder.append(bytes)
            let frame = try #require(try decoder.next(), "example \(name)")
            #expect(decoder.bufferedByteCount == 0, "example \(name) has extra bytes")
            _ = try Message.decode(frame)
        }
    }

    @Test func thePasscodeExampleProvesTheCodeAndOnlyForItsChallenge() throws {
        let documented = try Self.documentExamples()
        let bytes = try #require(documented["hello-passcode"])
        let frame = try #require(try FrameDecoder.decode(bytes[...])).0
        guard case .hello(let hello) = try Message.decode(frame) else { Issue.record("not a HELLO"); return }
        let key = try PasscodeKey(code: "k7m q4p", matchID: ProtocolExamples.matchID)
        #expect(key.bytes == documented["passcode-key"])
        #expect(key.accepts(hello.passcodeProof, for: ProtocolExamples.challenge))
        #expect(!key.accepts(hello.passcodeProof, for: PasscodeChallenge(matchID: ProtocolExamples.matchID, hostNonce: ProtocolExamples.guestNonce)))
    }

    @Test func everyReasonCodeIsDocumented() throws {
        let text = try String(contentsOf: Self.documentURL, encoding: .utf8)
        for code in ReasonCode.known {
            #expect(text.contains("| \(code.rawValue) | `\(code.name ?? "")`"), "reason \(code.rawValue) is not in the table")
        }
    }
}
