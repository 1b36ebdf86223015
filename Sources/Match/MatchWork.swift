import Synchronization

/// Counts the costly steps done for chosen matches: whole-blob decodes,
/// state encodings, and moves applied by the rules. A hook for tests that
/// check a change is judged once per hop and a state encoded once per commit.
///
/// Off unless a test watches a match: each step then costs one relaxed
/// atomic load. Counts are kept per match id, so tests running side by
/// side do not see each other's work.
public enum MatchWork {
    /// What was done for one match.
    public struct Counts: Hashable, Sendable, CustomStringConvertible {
        /// Blobs read and validated (`MatchBlob.decode`, or a successor read against a known state).
        public var decodes = 0
        /// Times a state was serialised (the blob body, for the blob or its hash).
        public var encodes = 0
        /// Moves applied by the game's rules (each move replayed by a decode counts).
        public var applies = 0

        /// Counts to start from (zero by default).
        public init(decodes: Int = 0, encodes: Int = 0, applies: Int = 0) {
            self.decodes = decodes
            self.encodes = encodes
            self.applies = applies
        }

        /// "N decodes, N encodes, N moves applied", for a bench's line.
        public var description: String { "\(decodes) decodes, \(encodes) encodes, \(applies) moves applied" }
    }

    private static let watched = Atomic<Int>(0)
    private static let table = Mutex<[MatchID: Counts]>([:])

    /// Starts counting the work done for `match` (from zero).
    public static func watch(_ match: MatchID) {
        let added = table.withLock { table -> Bool in
            let new = table[match] == nil
            table[match] = Counts()
            return new
        }
        if added { watched.add(1, ordering: .relaxed) }
    }

    /// The work counted for `match` so far.
    public static func counts(for match: MatchID) -> Counts {
        table.withLock { $0[match] } ?? Counts()
    }

    /// Stops counting for `match` and returns what was counted.
    @discardableResult
    public static func stopWatching(_ match: MatchID) -> Counts {
        let removed = table.withLock { $0.removeValue(forKey: match) }
        if removed != nil { watched.subtract(1, ordering: .relaxed) }
        return removed ?? Counts()
    }

    static func note(_ match: MatchID, _ step: WritableKeyPath<Counts, Int>, _ count: Int = 1) {
        guard watched.load(ordering: .relaxed) > 0 else { return }
        table.withLock { table in table[match]?[keyPath: step] += count }
    }
}
