import Games
import Testing
@testable import Bots

/// Issue 16 item 4: the fill-up model `hard` judges long Cube Four games
/// by. Its parity rules checked on hand-made cubes, its table against the
/// model's game played out in full.
@Suite("Cube Four fill-up")
struct Cube4FillUpTests {
    /// Cell `level` (0 = bottom) of peg `peg`.
    static func cell(_ peg: Int, level: Int) -> UInt64 { 1 << UInt64(level * 16 + peg) }

    @Test("the first player's winning cell on level 3 wins a fill-up for it, whoever moves")
    func firstPlayerOddThreatWins() {
        let threat = Self.cell(0, level: 2)
        #expect(Cube4FillUp.outcome(mask: 0, mine: threat, theirs: 0) == 1)
        // The second player to move after one stone elsewhere: it will have to play under the threat.
        let oneStone = Self.cell(15, level: 0)
        #expect(Cube4FillUp.outcome(mask: oneStone, mine: 0, theirs: threat) == -1)
    }

    @Test("on level 2 it is the second player's winning cell that wins; the first player's draws")
    func evenThreats() {
        let threat = Self.cell(0, level: 1), oneStone = Self.cell(15, level: 0)
        // The second player's (it is to move after one stone), whoever moves.
        #expect(Cube4FillUp.outcome(mask: oneStone, mine: threat, theirs: 0) == 1)
        #expect(Cube4FillUp.outcome(mask: 0, mine: 0, theirs: threat) == -1)
        // The first player's, whoever moves.
        #expect(Cube4FillUp.outcome(mask: 0, mine: threat, theirs: 0) == 0)
        #expect(Cube4FillUp.outcome(mask: oneStone, mine: 0, theirs: threat) == 0)
    }

    @Test("no winning cells: a draw; one cell winning for both: whoever runs out of moves first loses")
    func neutralAndShared() {
        #expect(Cube4FillUp.outcome(mask: 0, mine: 0, theirs: 0) == 0)
        // Shared on level 2 of peg 0: the cube has 60 other cells, 60 other moves, then the side to move is stuck.
        let shared = Self.cell(0, level: 1)
        #expect(Cube4FillUp.outcome(mask: 0, mine: shared, theirs: shared) == -1)
        #expect(Cube4FillUp.outcome(mask: Self.cell(15, level: 0), mine: shared, theirs: shared) == 1)
    }

    @Test("two winning cells of one side stacked in a peg win for it, the nearer pair first")
    func stackedPairs() {
        let mine = Self.cell(3, level: 1) | Self.cell(3, level: 2)
        #expect(Cube4FillUp.outcome(mask: 0, mine: mine, theirs: 0) == 1)
        #expect(Cube4FillUp.outcome(mask: 0, mine: 0, theirs: mine) == -1)
        // Theirs can be cashed at once (level 1 and 2 above a stone), mine needs a stone first.
        let theirs = Self.cell(5, level: 2) | Self.cell(5, level: 3)
        #expect(Cube4FillUp.outcome(mask: Self.cell(5, level: 0) | Self.cell(3, level: 0) | Self.cell(9, level: 0),
                                    mine: Self.cell(9, level: 3) | Self.cell(9, level: 2) | Self.cell(3, level: 3),
                                    theirs: theirs) == 1)
        #expect(Cube4FillUp.outcome(mask: Self.cell(5, level: 0), mine: Self.cell(9, level: 2) | Self.cell(9, level: 3),
                                    theirs: theirs) == -1)
    }

    @Test("the table equals the model's game played out with every count, not just their parity and lead")
    func tableMatchesTheFullGame() {
        var memo: [Int: Int8] = [:]
        for free in 0..<9 { for mySpends in 0..<6 { for theirSpends in 0..<6 {
            for myEven in 0..<3 { for theirEven in 0..<3 { for shared in [false, true] {
                let full = Cube4FillUp.solve(free: free, mySpends: mySpends, myEven: myEven, theirSpends: theirSpends,
                                             theirEven: theirEven, shared: shared, memo: &memo)
                let freeClass = free == 0 ? 0 : (free % 2 == 1 ? 1 : 2)
                let lead = min(Cube4FillUp.maxLead, max(-Cube4FillUp.maxLead, mySpends - theirSpends))
                let short = Cube4FillUp.solve(free: freeClass, mySpends: max(lead, 0), myEven: min(myEven, 1),
                                              theirSpends: max(-lead, 0), theirEven: min(theirEven, 1), shared: shared, memo: &memo)
                #expect(full == short, "free \(free), spends \(mySpends)/\(theirSpends), even \(myEven)/\(theirEven), shared \(shared)")
            }}}
        }}}
    }

    /// The real game's value for the side to move (+1, 0, -1), every line
    /// read by the rules' own masks, all moves tried: an independent check.
    static func playedOut(_ me: UInt64, _ them: UInt64, memo: inout [UInt64: Int]) -> Int {
        let mask = me | them
        if mask == .max { return 0 }
        let key = me &* 0x9E37_79B9_7F4A_7C15 ^ mask
        if let known = memo[key] { return known }
        var best = -1, cells = possible(mask)
        while cells != 0 && best < 1 {
            let bit = cells & (~cells &+ 1)
            cells &= cells - 1
            if completesALine(bit, me | bit) { best = 1; break }
            best = max(best, -playedOut(them, me | bit, memo: &memo))
        }
        memo[key] = best
        return best
    }

    /// The lowest empty cell of every peg that is not full.
    static func possible(_ mask: UInt64) -> UInt64 { ~mask & ((mask << 16) | 0xFFFF) }

    /// Whether the stone on `bit` completes a line of `stones` (which hold it).
    static func completesALine(_ bit: UInt64, _ stones: UInt64) -> Bool {
        Cube4.lineMasks.contains { $0 & bit != 0 && $0 & stones == $0 }
    }

    /// Each side's winning cells, by the rules' masks.
    static func winningCells(_ side: UInt64, _ other: UInt64) -> UInt64 {
        Cube4.lineMasks.reduce(0) { cells, line in
            line & other == 0 && (line & side).nonzeroBitCount == 3 ? cells | (line & ~side) : cells
        }
    }

    @Test("on real endgames where no new winning cell can arise, the model says what playing it out says")
    func agreesWithPlayingOut() {
        var random = SplitMix64(seed: 16)
        var checked = 0, games = 0, seen: [Int: Int] = [:]
        while checked < 120 && games < 20_000 {
            games += 1
            var me: UInt64 = 0, them: UInt64 = 0
            while true {
                let possible = Self.possible(me | them)
                // A random move that neither wins nor hands the other side a win at once.
                var choices: [UInt64] = []
                var cells = possible
                while cells != 0 {
                    let bit = cells & (~cells &+ 1)
                    cells &= cells - 1
                    let theirCells = Self.winningCells(them, me | bit)
                    if !Self.completesALine(bit, me | bit) && theirCells & (possible | bit << 16) == 0 {
                        choices.append(bit)
                    }
                }
                guard let move = choices.randomElement(using: &random) else { break }
                (me, them) = (them, me | move)
                let empty = 64 - (me | them).nonzeroBitCount
                guard empty <= 16 else { continue }
                let mine = Self.winningCells(me, them), theirs = Self.winningCells(them, me)
                // The model's conditions: nothing playable at once, one winning cell a peg, no line left to grow.
                let growing = Cube4.lineMasks.contains { line in
                    (line & them == 0 && (line & me).nonzeroBitCount < 3) || (line & me == 0 && (line & them).nonzeroBitCount < 3)
                }
                let crowded = (0..<16).contains { ((mine | theirs) & Cube4Bits.pegMask($0)).nonzeroBitCount > 1 }
                guard !growing, !crowded, (mine | theirs) & Self.possible(me | them) == 0 else { continue }
                var memo: [UInt64: Int] = [:]
                let truth = Self.playedOut(me, them, memo: &memo)
                #expect(Cube4FillUp.outcome(mask: me | them, mine: mine, theirs: theirs) == truth,
                        "stones \(String(me, radix: 16)) / \(String(them, radix: 16))")
                checked += 1
                seen[truth, default: 0] += 1
                break
            }
        }
        #expect(checked == 120, "only \(checked) positions in \(games) games")
        // Wins, draws and losses for the side to move all among them.
        #expect([-1, 0, 1].allSatisfy { seen[$0, default: 0] >= 10 }, "\(seen)")
    }
}
