import Match
import Synchronization

/// One write-ahead save per committed state for every guest link of a table.
///
/// Each `RemoteGuest` asks to save every committed state before it sends
/// what reveals it (`persistBeforeSending`). At a table of N links the same
/// state would be written N times; `persist` hands each link a save that
/// writes the state once (the first link to ask starts it) and calls every
/// link back, in the order they asked, when it is on disk. The links' frames
/// for one state therefore all wait for that one save, and each link's frames
/// still leave in commit order.
public final class TableSave: Sendable {
    private struct Entry {
        var result: Result<Void, SaveFailure>?
        var waiting: [@Sendable ((any Error)?) -> Void] = []
        var asked = 0
    }

    /// A failed save, as each waiting link is told.
    struct SaveFailure: Error, CustomStringConvertible {
        var description: String
    }

    private let save: RemoteGuest.Persist
    private let links: Int
    private let entries = Mutex<[StateKey: Entry]>([:])

    private struct StateKey: Hashable {
        var sequence: UInt32
        var stateHash: UInt64
    }

    /// Saves through `save` once per state for `links` guest links.
    public init(links: Int, save: @escaping RemoteGuest.Persist) {
        self.links = max(1, links)
        self.save = save
    }

    /// The save one link uses: pass it to that link's `persistBeforeSending(asynchronously:)`.
    public var persist: RemoteGuest.Persist {
        { [self] state, then in ask(state, then: then) }
    }

    private func ask(_ state: MatchState, then: @escaping @Sendable ((any Error)?) -> Void) {
        let key = StateKey(sequence: state.sequence, stateHash: state.stateHash)
        enum Next { case start, wait, done(Result<Void, SaveFailure>) }
        let next = entries.withLock { entries -> Next in
            var entry = entries[key] ?? Entry()
            entry.asked += 1
            defer {
                // Every link has asked and been answered: nothing more will come for this state.
                if entry.asked >= links, entry.result != nil { entries[key] = nil } else { entries[key] = entry }
            }
            switch entry.result {
            case .success?:
                return .done(.success(()))
            case .failure?:
                // A link tries a failed save again (`RemoteGuest` does every second): save again.
                entry.result = nil
                entry.waiting = [then]
                return .start
            case nil:
                entry.waiting.append(then)
                return entry.waiting.count == 1 ? .start : .wait
            }
        }
        switch next {
        case .wait:
            return
        case .done(let result):
            then(Self.error(result))
        case .start:
            save(state) { [self] error in
                let result: Result<Void, SaveFailure> = error.map { .failure(SaveFailure(description: "\($0)")) } ?? .success(())
                let waiting = entries.withLock { entries -> [@Sendable ((any Error)?) -> Void] in
                    guard var entry = entries[key] else { return [] }
                    entry.result = result
                    let waiting = entry.waiting
                    entry.waiting = []
                    entries[key] = entry.asked >= links ? nil : entry
                    return waiting
                }
                for link in waiting { link(Self.error(result)) }
            }
        }
    }

    private static func error(_ result: Result<Void, SaveFailure>) -> (any Error)? {
        if case .failure(let failure) = result { return failure }
        return nil
    }
}
