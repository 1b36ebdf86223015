// Real matches for seeds, and hash repair so mutated inputs get past the
// checksums. Shared by the targets that deal in match blobs.
import Games
import Match

/// Fixed identifiers, so seeds are the same on every run and a target can
/// recognise "its" match (a resume HELLO, a WELCOME for its own player).
enum FixtureIDs {
    static let match = Identifier128(bytes: Array(repeating: 0x4D, count: 16))!   // "MMMM..."
    static let host = Identifier128(bytes: Array(repeating: 0x48, count: 16))!    // "HHHH..."
    static let guest = Identifier128(bytes: Array(repeating: 0x47, count: 16))!   // "GGGG..."
    static let seatToken = Identifier128(bytes: Array(repeating: 0x54, count: 16))!  // "TTTT..."
}

/// A game with chance, so that format-3 blobs (with the host's seed) are
/// fuzzed too: a race to 10 in which each turn adds one of two step sizes
/// that the seed deals (1 to 3 each). No built-in game uses chance.
struct SeededRace: Game {
    static let id = "fuzz-seeded-race"
    static let rulesVersion = 1
    static let displayName = "Seeded race"
    static let summary = "Add one of the two dealt steps; whoever reaches 10 wins."
    static let moveHelp = "0 or 1"
    static let seatRange = 2...2
    static let alternatesStrictly = true
    static let usesRandomness = true

    private(set) var steps: [Int]
    private(set) var total = 0
    private(set) var moveCount = 0

    init(seats: Int) { self.init(seats: seats, seed: 0) }
    init(seats: Int, seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        steps = [1 + Int(generator.next() % 3), 1 + Int(generator.next() % 3)]
    }

    var seatCount: Int { 2 }
    var result: GameResult { total >= 10 ? .won(by: (moveCount - 1) % 2) : .inProgress }
    var activeSeat: SeatIndex? { result == .inProgress ? moveCount % 2 : nil }
    var legalMoves: [Move] { result == .inProgress ? [Move(0), Move(1)] : [] }
    func isLegal(_ move: Move) -> Bool { result == .inProgress && (0...1).contains(move.rawValue) }
    mutating func apply(_ move: Move) throws(RuleViolation) {
        guard result == .inProgress else { throw .gameOver }
        guard isLegal(move) else { throw .illegalMove(move) }
        total += steps[move.rawValue]
        moveCount += 1
    }
    func notation(for move: Move) -> String { String(move.rawValue) }
    func move(fromNotation text: String) -> Move? { Int(text).map(Move.init).flatMap { isLegal($0) ? $0 : nil } }
}

/// A game whose moves are `Codable` values (byte moves), so that format-5
/// blobs are fuzzed too: a race to 10 in steps of 1 to 3, each move the JSON
/// of a `Step`, at most 16 bytes. No built-in game has byte moves.
struct StepRace: CodableMoveGame {
    struct Step: Codable, Sendable { var n: Int }
    typealias MoveValue = Step
    static let id = "fuzz-step-race"
    static let rulesVersion = 1
    static let displayName = "Step race"
    static let summary = "Step 1 to 3; whoever reaches 10 wins."
    static let moveHelp = "1, 2 or 3"
    static let seatRange = 2...2
    static let alternatesStrictly = true
    static let moveByteLimit: Int? = 16

    private(set) var total = 0
    private(set) var moveCount = 0
    init(seats: Int) {}

    var seatCount: Int { 2 }
    var result: GameResult { total >= 10 ? .won(by: (moveCount - 1) % 2) : .inProgress }
    var activeSeat: SeatIndex? { result == .inProgress ? moveCount % 2 : nil }
    var legalMoves: [Move] { result == .inProgress ? (1...3).compactMap { try? Self.move(Step(n: $0)) } : [] }
    func isLegal(_ move: Move) -> Bool {
        guard result == .inProgress, let step = Self.value(of: move) else { return false }
        return step.n >= 1 && step.n <= 3
    }
    mutating func apply(_ move: Move) throws(RuleViolation) {
        guard result == .inProgress else { throw .gameOver }
        guard isLegal(move), let step = Self.value(of: move) else { throw .illegalMove(move) }
        total += step.n
        moveCount += 1
    }
    func notation(for move: Move) -> String { Self.value(of: move).map { String($0.n) } ?? "?" }
    func move(fromNotation text: String) -> Move? { Int(text).flatMap { try? Self.move(Step(n: $0)) } }
}

/// Registers `SeededRace` and `StepRace`, once; a target that decodes blobs reads this
/// before its first input, so format-3 and format-5 inputs reach the checks behind the game id.
let fuzzGamesRegistered: Void = {
    _ = try? GameCatalog.register(SeededRace.self)
    _ = try? GameCatalog.register(StepRace.self)
}()

/// Matches of every catalog game at several points: fresh, mid-game, ended by
/// the rules, ended by a quit, with and without a turn timeout; `SeededRace`
/// among them, from a fixed seed.
func sampleMatches() -> [(name: String, state: MatchState)] {
    _ = fuzzGamesRegistered
    var result: [(String, MatchState)] = []
    var random = SeedRandom(0x5EED)
    for type in GameCatalog.all {
        for (label, timeout) in [("", UInt32(0)), ("-timed", UInt32(30))] {
            let seats = [Seat(playerID: FixtureIDs.host, name: "Ada"), Seat(playerID: FixtureIDs.guest, name: "Grace Hopper ♛")]
            let fresh = MatchState(matchID: FixtureIDs.match, gameType: type, seats: seats, seed: 0x5EED,
                                   turnTimeout: timeout, now: timeout > 0 ? 1_700_000_000_000 : 0)
            result.append(("\(type.id)\(label)-fresh", fresh))
            var state = fresh
            var step = 0
            while !state.isEnded, let seat = state.activeSeat {
                let legal = state.game.legalMoves
                guard !legal.isEmpty else { break }
                let move = legal[Int(random.next() % UInt64(legal.count))]
                guard let next = try? state.applying(.move(move, by: seat), now: 1_700_000_000_000 + Int64(step) * 1000) else { break }
                state = next
                step += 1
                if step == 3 || step == 8 { result.append(("\(type.id)\(label)-move\(step)", state)) }
                if step == 5, let quitter = state.activeSeat, let quit = try? state.applying(.quit(quitter), now: 0) {
                    result.append(("\(type.id)\(label)-quit", quit))
                }
            }
            result.append(("\(type.id)\(label)-ended", state))
        }
        // Games for more than two players (dots-and-boxes, chinese-checkers):
        // every seat count they take (format 2 blobs), played to the end, once
        // with a seat quitting early so the match goes on without it.
        for seats in type.seatCounts where seats > 2 && MatchBlob.seatLimit.contains(seats) {
            let names = ["Ada", "Grace Hopper ♛", "Edsger", "Barbara", "Alan", "Kathleen"]
            let players = (0..<seats).map { index in
                PlayerID(bytes: (0..<16).map { UInt8(truncatingIfNeeded: 0x40 + index * 16 + $0) }) ?? FixtureIDs.host
            }
            let seatList = (0..<seats).map { Seat(playerID: players[$0], name: names[$0]) }
            for quitter in [nil, 1] as [Int?] {
                var state = MatchState(matchID: FixtureIDs.match, gameType: type, seats: seatList, seed: 0x5EED)
                while !state.isEnded, let seat = state.activeSeat {
                    if let quitter, state.moves.count == 3, state.seats[quitter].status == .playing,
                       let next = try? state.applying(.quit(quitter), now: 0) {
                        state = next
                        continue
                    }
                    let legal = state.game.legalMoves
                    guard !legal.isEmpty,
                          let next = try? state.applying(.move(legal[Int(random.next() % UInt64(legal.count))], by: seat), now: 0) else { break }
                    state = next
                }
                result.append(("\(type.id)-\(seats)seats-\(quitter == nil ? "ended" : "one-quit")", state))
            }
        }
    }
    // Format 4 (moves with a message, docs/PROTOCOL.md section 5): a game without chance and one with;
    // format 5 (byte moves) with messages too.
    for type in [Connect4.self, SeededRace.self, StepRace.self] as [any Game.Type] {
        var state = MatchState(matchID: FixtureIDs.match, gameType: type,
                               seats: [Seat(playerID: FixtureIDs.host, name: "Ada"), Seat(playerID: FixtureIDs.guest, name: "Grace Hopper ♛")],
                               seed: 0x5EED)
        for text in ["Your move, Grace", nil, "gg ♛"] as [String?] {
            guard let seat = state.activeSeat, let move = state.game.legalMoves.first,
                  let next = try? state.applying(.move(move, by: seat, message: text.flatMap { try? TurnMessage($0) }), now: 0) else { break }
            state = next
        }
        result.append(("\(type.id)-messages", state))
    }
    return result
}

/// Where the deadline field starts in a format 1 to 5 blob, or nil if the bytes
/// are not laid out far enough to tell (docs/PROTOCOL.md, "The match blob").
func deadlineOffset(inBlob blob: [UInt8]) -> Int? {
    var reader = ByteReader(blob)
    do {
        _ = try reader.readBytes(4)                 // magic
        let format = try reader.readUInt16()
        _ = try reader.readBytes(16)                // match id
        _ = try reader.readShortBytes()             // game id
        _ = try reader.readUInt16()                 // rules version
        let seedFlag = format >= 4 ? try reader.readUInt8() : 0   // formats 4 and 5: whether a seed follows
        if format == 3 || seedFlag == 1 { _ = try reader.readUInt64() }   // seed (a game with chance)
        let seats = Int(try reader.readUInt8())
        for _ in 0..<seats {
            _ = try reader.readBytes(16)
            _ = try reader.readShortBytes()
            _ = try reader.readBytes(format >= 2 ? 4 : 2)   // status, outcome (, left after)
        }
        _ = try reader.readBytes(4 + 4)             // sequence, turn timeout
        return reader.offset
    } catch {
        return nil
    }
}

/// `blob` with its trailing state hash recomputed, so that the fuzzer's
/// mutations reach the checks behind the hash; nil when it has no room for one.
func blobWithRepairedHash(_ blob: [UInt8]) -> [UInt8]? {
    guard let deadline = deadlineOffset(inBlob: blob), blob.count >= deadline + 8 + 8 else { return nil }
    var body = Array(blob[0..<(blob.count - 8)])
    for index in deadline..<(deadline + 8) { body[index] = 0 }
    var writer = ByteWriter()
    writer.write(bytes: blob[0..<(blob.count - 8)])
    writer.write(fnv1a64(body))
    return writer.bytes
}

/// A store file with the inner blob's hash and the file checksum recomputed;
/// nil when the bytes do not get as far as the blob.
func storeFileWithRepairedChecksums(_ file: [UInt8]) -> [UInt8]? {
    var reader = ByteReader(file, offset: 4 + 2 + 1 + 1 + 1 + 8)  // magic, format, role, seat, phase, activity
    do {
        _ = try reader.readShortBytes()                // peer address
        _ = try reader.readBytes(16 + 4)               // seat token, writer pid
        let blobStart = reader.offset + 4
        let length = Int(try reader.readUInt32())
        guard length <= file.count - blobStart else { return nil }
        var repaired = Array(file[0..<blobStart])
        let blob = Array(file[blobStart..<(blobStart + length)])
        repaired += blobWithRepairedHash(blob) ?? blob
        let rest = file.count - (blobStart + length)
        guard rest >= 8 else { return nil }
        repaired += file[(blobStart + length)..<(file.count - 8)]
        var writer = ByteWriter()
        writer.write(bytes: repaired)
        writer.write(fnv1a64(repaired))
        return writer.bytes
    } catch {
        return nil
    }
}
