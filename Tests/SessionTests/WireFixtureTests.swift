import Foundation
import Games
import Match
import Testing
@testable import Session

/// The bytes release 1 (protocol 1) really sent, recorded between two real
/// `parlor` processes by `scripts/record-wire` (Tests/Golden/protocol1-*.frames:
/// one frame a line, `G` guest to host or `H` host to guest, then its hex).
///
/// A later protocol must keep reading these and keep answering a protocol-1
/// peer as docs/PROTOCOL.md section 13 says; these tests fail the moment the
/// encoders or decoders stop agreeing with what is already on people's machines.
enum WireFixture {
    struct Line {
        var fromGuest: Bool
        var bytes: [UInt8]
    }

    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Golden")

    static func load(_ name: String) throws -> [Line] {
        let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            let parts = line.split(separator: " ")
            guard parts.count == 2, parts[0] == "G" || parts[0] == "H", let bytes = hexBytes(parts[1]) else {
                throw FixtureError(line: String(line))
            }
            return Line(fromGuest: parts[0] == "G", bytes: bytes)
        }
    }

    static func hexBytes(_ text: Substring) -> [UInt8]? {
        guard text.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }

    struct FixtureError: Error { var line: String }
}

@Suite("What release 1 put on the wire still reads and encodes the same")
struct WireFixtureTests {
    /// Decodes every recorded frame, checks it re-encodes to the same bytes, and returns the messages.
    func messages(_ name: String) throws -> [(fromGuest: Bool, message: Message)] {
        try WireFixture.load(name).map { line in
            let decoded = try FrameDecoder.decode(line.bytes[...])
            let (frame, used) = try #require(decoded, "a whole frame on each line")
            #expect(used == line.bytes.count, "one frame per line")
            let message = try Message.decode(frame)
            #expect(message.encoded == line.bytes, "\(frame.type) must encode to the bytes release 1 sent")
            return (line.fromGuest, message)
        }
    }

    @Test("a connect4 match between two bots: HELLO, WELCOME, TURN and CONFIRM in turn, GOODBYE both ways")
    func connect4Match() throws {
        let recorded = try messages("protocol1-connect4.frames")
        guard case .hello(let hello)? = recorded.first?.message, recorded.first?.fromGuest == true else {
            Issue.record("the guest speaks first, with HELLO"); return
        }
        #expect(hello.protocolVersions == [1])
        #expect(hello.games.contains(GameVersion(id: "connect4", rulesVersion: 1)))
        guard case .welcome? = recorded.dropFirst().first?.message else { Issue.record("then WELCOME"); return }
        // Every TURN from the guest is answered by a CONFIRM of the same sequence.
        var lastState: MatchState?
        for (index, entry) in recorded.enumerated() {
            if case .turn(let sequence, let blob) = entry.message {
                let state = try MatchBlob.decode(blob)
                #expect(state.sequence == sequence)
                lastState = state
                if entry.fromGuest {
                    guard case .confirm(let confirmed, let hash, _)? = recorded.dropFirst(index + 1).first?.message else {
                        Issue.record("a guest's TURN must be confirmed next"); continue
                    }
                    #expect(confirmed == sequence)
                    #expect(hash == state.stateHash)
                }
            }
        }
        let end = try #require(lastState)
        #expect(end.isEnded, "the recorded match played to its end")
        #expect(recorded.suffix(2).map(\.fromGuest) == [false, true])
        for entry in recorded.suffix(2) {
            guard case .goodbye(let reason, _, _) = entry.message else { Issue.record("ends with GOODBYE"); continue }
            #expect(reason == .goodbyeMatchOver)
        }
    }

    @Test("a passcode handshake: HELLO, CHALLENGE, HELLO with a proof, WELCOME")
    func passcodeHandshake() throws {
        let recorded = try messages("protocol1-tictactoe-passcode.frames")
        let opening = recorded.prefix(4)
        #expect(opening.map(\.fromGuest) == [true, false, true, false])
        guard case .hello(let first) = opening[0].message, case .challenge = opening[1].message,
              case .hello(let proven) = opening[2].message, case .welcome = opening[3].message else {
            Issue.record("opening was \(opening.map(\.message))"); return
        }
        #expect(first.passcodeProof.isEmpty)
        #expect(!proven.passcodeProof.isEmpty)
    }
}
