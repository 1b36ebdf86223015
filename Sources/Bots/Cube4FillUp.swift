/// How a Cube Four position ends if it is filled up with the winning cells
/// it has now and no new ones: the zugzwang that settles most long games.
///
/// The model, per peg (bottom to top), from the lowest winning cell `h` of
/// either side in it:
/// - the empty cells below `h - 1` are *free*: either side may play them;
/// - the cell at `h - 1` is poison to whoever does not own `h` (the owner
///   wins on top of it); the owner may play it to *spend* the peg: the other
///   side must block at `h`, the owner is on the move again, and the cells
///   above `h` become free (an odd number of them hands the parity over);
/// - a cell winning for both sides poisons its peg for both;
/// - two winning cells of one side stacked at `h` and `h + 1` win for it
///   (it plays `h - 1`, the block at `h` opens `h + 1`).
///
/// The side that runs out of free cells and pegs to spend must play under
/// a winning cell of the other side and loses; a cube filled without that
/// is a draw. Free cells count only by parity, and spendable pegs by how
/// many more one side has (checked by enumerating the game), so the whole
/// model is a table of 216 outcomes, worked out once.
///
/// It reads Connect Four's parity rules off the cube: a winning cell of the
/// first player on level 3, or of the second on level 2, wins the fill-up
/// when the other side has nothing to answer it with.
enum Cube4FillUp {
    /// +1: the side to move wins the fill-up, -1: it loses, 0: a draw.
    /// `mine` and `theirs` are each side's winning cells (the side to move's
    /// first), none of them playable at once.
    @inline(__always)
    static func outcome(mask: UInt64, mine: UInt64, theirs: UInt64) -> Int {
        let threats = mine | theirs
        // No winning cells: whatever the parity, the cube fills up to a draw (most leaves of an opening).
        guard threats != 0 else { return 0 }
        var free = 0, mySpends = 0, theirSpends = 0, myEven = false, theirEven = false, shared = false
        var myRun = Int.max, theirRun = Int.max
        for peg in 0..<16 {
            let column = Cube4Bits.pegMask(peg)
            let filled = (mask & column).nonzeroBitCount
            let pegThreats = threats & column
            guard pegThreats != 0 else { free += 4 - filled; continue }
            let lowestCell = pegThreats.trailingZeroBitCount
            let height = lowestCell >> 4
            let below = max(0, height - 1 - filled)
            free += below
            let bit: UInt64 = 1 &<< UInt64(lowestCell)
            let above = 3 - height
            if mine & bit != 0 && theirs & bit != 0 {
                shared = true
            } else if mine & bit != 0 {
                if height < 3 && mine & (bit &<< 16) != 0 { myRun = min(myRun, below) }
                if above & 1 == 1 { mySpends += 1 } else { myEven = true }
            } else {
                if height < 3 && theirs & (bit &<< 16) != 0 { theirRun = min(theirRun, below) }
                if above & 1 == 1 { theirSpends += 1 } else { theirEven = true }
            }
        }
        // A stacked pair wins for whoever can cash it first (the side to move on a tie).
        if myRun != .max || theirRun != .max { return myRun <= theirRun ? 1 : -1 }
        return Int(table[index(free: free, lead: mySpends - theirSpends, myEven: myEven, theirEven: theirEven, shared: shared)])
    }

    @inline(__always)
    private static func index(free: Int, lead: Int, myEven: Bool, theirEven: Bool, shared: Bool) -> Int {
        // Free cells by parity (none at all differs: the side to move cannot wait).
        let freeClass = free == 0 ? 0 : (free & 1 == 1 ? 1 : 2)
        let leadClass = min(maxLead, max(-maxLead, lead)) + maxLead
        return (((freeClass * 2 + (myEven ? 1 : 0)) * 2 + (theirEven ? 1 : 0)) * 2 + (shared ? 1 : 0)) * (2 * maxLead + 1) + leadClass
    }

    /// Beyond this many more spendable pegs than the other side, more change nothing.
    static let maxLead = 4

    /// Every outcome, by `index`, from `solve`.
    static let table: [Int8] = {
        var memo: [Int: Int8] = [:]
        var result = [Int8](repeating: 0, count: 3 * 2 * 2 * 2 * (2 * maxLead + 1))
        for freeClass in 0..<3 { for myEven in [false, true] { for theirEven in [false, true] { for shared in [false, true] {
            for lead in -maxLead...maxLead {
                let value = solve(free: freeClass, mySpends: max(lead, 0), myEven: myEven ? 1 : 0,
                                  theirSpends: max(-lead, 0), theirEven: theirEven ? 1 : 0, shared: shared, memo: &memo)
                result[index(free: freeClass, lead: lead, myEven: myEven, theirEven: theirEven, shared: shared)] = value
            }
        } } } }
        return result
    }()

    /// The model's game played out: the side to move plays a free cell
    /// (the other side is then to move), or spends one of its pegs (it stays
    /// on the move, with one more free cell for an odd peg).
    static func solve(free: Int, mySpends: Int, myEven: Int, theirSpends: Int, theirEven: Int, shared: Bool,
                      memo: inout [Int: Int8]) -> Int8 {
        let key = ((((free * 32 + mySpends) * 32 + myEven) * 32 + theirSpends) * 32 + theirEven) * 2 + (shared ? 1 : 0)
        if let known = memo[key] { return known }
        var best: Int8?
        if free > 0 {
            best = -solve(free: free - 1, mySpends: theirSpends, myEven: theirEven, theirSpends: mySpends, theirEven: myEven,
                          shared: shared, memo: &memo)
        }
        if mySpends > 0 {
            let value = solve(free: free + 1, mySpends: mySpends - 1, myEven: myEven, theirSpends: theirSpends,
                              theirEven: theirEven, shared: shared, memo: &memo)
            best = max(best ?? value, value)
        }
        if myEven > 0 {
            let value = solve(free: free, mySpends: mySpends, myEven: myEven - 1, theirSpends: theirSpends,
                              theirEven: theirEven, shared: shared, memo: &memo)
            best = max(best ?? value, value)
        }
        // Nothing left but cells under the other side's winning cells (it loses), or nothing at all (a draw).
        let value = best ?? (theirSpends + theirEven > 0 || shared ? -1 : 0)
        memo[key] = value
        return value
    }
}
