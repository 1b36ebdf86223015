import Games
import Match
import Testing
@testable import Session

/// Message payloads: round trips, exact layouts, and validation of every field.
@Suite struct MessageProtocolTests {
    static let player = PlayerID(hex: "00112233445566778899aabbccddeeff")!
    static let token = SeatToken(hex: "0f0e0d0c0b0a09080706050403020100")!

    static func sampleHello() -> Hello {
        Hello(appVersion: "0.1.0", playerID: player, playerName: "Ada", games: [GameVersion(id: "connect4", rulesVersion: 1)])
    }

    static func sampleBlob() -> [UInt8] {
        let state = MatchState(matchID: MatchID(hex: "aa" + String(repeating: "0", count: 30))!,
                               game: Connect4(), seats: [Seat(playerID: player, name: "Ada"),
                                                         Seat(playerID: PlayerID(hex: String(repeating: "1", count: 32))!, name: "Bo")])
        return MatchBlob.encode(state)
    }

    static let samples: [Message] = [
        .rematch(.offer), .rematch(.accept), .rematch(.decline),
        .hello(sampleHello()),
        .hello(Hello(protocolVersions: [1, 2, 9], appVersion: "9.9.9-beta", playerID: player, playerName: "Zoë 🎲",
                     games: [GameVersion(id: "tictactoe", rulesVersion: 3), GameVersion(id: "cube4", rulesVersion: 1)], matchID: MatchID(hex: String(repeating: "ab", count: 16)),
                     seatToken: token, passcodeProof: Array(0..<32))),
        .welcome(Welcome(protocolVersion: 1, seat: 1, seatToken: token,
                         settings: SessionSettings(turnTimeoutSeconds: 60, heartbeatIntervalMilliseconds: 3000,
                                                   heartbeatTimeoutMilliseconds: 15000, confirmationTimeoutMilliseconds: 10000),
                         hostAppVersion: "0.1.0", matchBlob: sampleBlob())),
        .reject(.matchFull, sentence: "The match already has two players."),
        .turn(sequence: 7, blob: sampleBlob()),
        .confirm(sequence: 7, stateHash: 0x0123_4567_89ab_cdef, deadline: 1_700_000_000_000),
        .turnRejected(sequence: 7, reason: .illegalMove, sentence: "Column 3 is full."),
        .stateRequest(knownSequence: 6),
        .state(blob: sampleBlob()),
        .quit(sequence: 8, blob: sampleBlob()),
        .heartbeat(senderTime: 1_700_000_000_123),
        .goodbye(.goodbyeMatchOver, sentence: "", finalBlob: sampleBlob()),
        .goodbye(.goodbyeDesync, sentence: "state hash differs", finalBlob: []),
    ]

    @Test(arguments: samples)
    func roundTrips(message: Message) throws {
        var decoder = FrameDecoder()
        decoder.append(message.encoded)
        let frame = try #require(try decoder.next())
        #expect(frame.type == message.type)
        #expect(try Message.decode(frame) == message)
    }

    @Test(arguments: samples)
    func everyTruncationIsAnErrorNotATrap(message: Message) {
        let payload = message.payload
        for length in 0..<payload.count {
            #expect(throws: MessageError.self) { try Message.decode(Frame(type: message.type, payload: Array(payload[..<length]))) }
        }
    }

    @Test(arguments: samples)
    func trailingBytesAreRefused(message: Message) {
        #expect(throws: MessageError.trailingBytes(message.type, count: 1)) {
            try Message.decode(Frame(type: message.type, payload: message.payload + [0]))
        }
    }

    @Test func confirmLayoutByteByByte() {
        let bytes = Message.confirm(sequence: 0x0102_0304, stateHash: 0x1112_1314_1516_1718, deadline: 0x2122_2324_2526_2728).encoded
        #expect(bytes == [0x50, 0x4C, 0x01, 0x05, 0, 0, 0, 20,
                          0x01, 0x02, 0x03, 0x04,
                          0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18,
                          0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28])
    }

    @Test func helloLayoutByteByByte() {
        let payload = Message.hello(Self.sampleHello()).payload
        var expected: [UInt8] = [3, 4, 2, 1]               // three versions: 4 (a move's message), 2 and 1
        expected += [5] + Array("0.1.0".utf8)              // app version
        expected += Self.player.bytes                      // player id
        expected += [3] + Array("Ada".utf8)                // name
        expected += [1, 8] + Array("connect4".utf8)        // one game: connect4
        expected += [0, 1]                                 // its rules version
        expected += Array(repeating: 0, count: 32)         // no match id, no seat token
        expected += [0]                                    // no passcode proof
        #expect(payload == expected)
    }

    @Test func sentencesWithControlCharactersAreRefused() {
        // An escape sequence from a peer must never reach the terminal.
        var writer = ByteWriter()
        writer.write(ReasonCode.busy.rawValue)
        let text = Array("\u{1B}[2Jgotcha".utf8)
        writer.write(UInt16(text.count)); writer.write(bytes: text)
        #expect(throws: MessageError.invalidField(.reject, field: "sentence")) {
            try Message.decode(Frame(type: .reject, payload: writer.bytes))
        }
    }

    @Test func invalidUTF8NameIsRefusedButControlCharactersAreLeftToTheHost() throws {
        var hello = Self.sampleHello()
        hello.playerName = "bell\u{7}"
        #expect(try Message.decode(Message.hello(hello).frame) == .hello(hello))
        var payload = Message.hello(Self.sampleHello()).payload
        // The name "Ada" starts after versions (4: 4, 2 and 1), app version (6) and player id (16).
        payload[27] = 0xFF
        #expect(throws: MessageError.invalidField(.hello, field: "player name")) {
            try Message.decode(Frame(type: .hello, payload: payload))
        }
    }

    @Test func blobLengthOverTheLimitIsRefusedBeforeReading() {
        var writer = ByteWriter()
        writer.write(UInt32(5)); writer.write(UInt32(MatchBlob.maximumSize + 1))
        #expect(throws: MessageError.invalidField(.turn, field: "blob length")) {
            try Message.decode(Frame(type: .turn, payload: writer.bytes))
        }
    }

    @Test func helloWithoutVersionsOrWithAnUppercaseGameIsRefused() {
        var noVersions = Message.hello(Self.sampleHello()).payload
        noVersions[0] = 0
        #expect(throws: MessageError.self) { try Message.decode(Frame(type: .hello, payload: noVersions)) }
        var hello = Self.sampleHello()
        hello.games = [GameVersion(id: "Connect4", rulesVersion: 1)]
        #expect(throws: MessageError.invalidField(.hello, field: "game id")) {
            try Message.decode(Message.hello(hello).frame)
        }
    }

    @Test func welcomeWithHeartbeatTimeoutBelowTheIntervalIsRefused() {
        let welcome = Welcome(protocolVersion: 1, seat: 0, seatToken: Self.token,
                              settings: SessionSettings(turnTimeoutSeconds: 0, heartbeatIntervalMilliseconds: 5000,
                                                        heartbeatTimeoutMilliseconds: 4000, confirmationTimeoutMilliseconds: 1000),
                              hostAppVersion: "1", matchBlob: Self.sampleBlob())
        #expect(throws: MessageError.invalidField(.welcome, field: "heartbeat timeout")) {
            try Message.decode(Message.welcome(welcome).frame)
        }
    }

    @Test func unknownReasonCodesFromNewerPeersStillDecode() throws {
        let message = try Message.decode(Message.reject(ReasonCode(rawValue: 777), sentence: "new").frame)
        #expect(message == .reject(ReasonCode(rawValue: 777), sentence: "new"))
        #expect(ReasonCode(rawValue: 777).description == "reason 777")
    }

    @Test func everyKnownReasonCodeHasADistinctNumberAndAName() {
        #expect(Set(ReasonCode.known.map(\.rawValue)).count == ReasonCode.known.count)
        #expect(ReasonCode.known.allSatisfy { $0.name != nil })
    }
}
