import Dispatch
import Foundation
import Games
import Match
import Synchronization
import TerminalUI

/// Every table's saved events, shown together for the whole hall.
///
/// Each event a table's recorder has saved is queued here, in that table's
/// order, and gathered for at most `gathering`; then one serial Dispatch
/// queue updates the board (`HallBoard`) and says the lines of everything
/// gathered (`--json`: each event tagged with its match and table). A task
/// per table woke a pool thread for nearly every event, about three times a
/// turn; gathered, a thousand busy tables cost the screen at most a hundred
/// wake-ups a second, and a line appears at most 10 ms after its save. A
/// standard output that blocks holds up only that queue: the saves and the
/// frames of every table go on.
final class HallShows: Sendable {
    /// One table followed: what its lines need.
    struct Table: Sendable {
        /// The table's number (given out again once it is free).
        var number: Int
        var id: MatchID
        /// The fields each of its `--json` events carries (match id, table).
        var tag: [(String, JSONValue)]
        var hostSeat: SeatIndex
        var initial: MatchState
    }

    /// How long events are gathered before they are shown.
    static let gathering: Duration = .milliseconds(10)

    fileprivate enum Item: Sendable {
        case open(UInt64, Table)
        case event(UInt64, MatchEvent)
        case finished(UInt64)
    }

    /// What is queued and not shown yet, and whether a showing is scheduled.
    private let pending = Gathered()
    private let queue = DispatchQueue(label: "parlor-hall-lines")
    /// Touched only on `queue`.
    private let screen: Screen
    private let ledger = Ledger()

    /// Shows lines with `announcer` and keeps `board`'s rows.
    init(board: HallBoard, announcer: Announcer) {
        screen = Screen(board: board, announcer: announcer)
    }

    /// Follows `feed` (a recorder's saved events) for `table`; returns the key `ended` and `stopFollowing` take.
    func follow(_ feed: MatchEventFeed, _ table: Table) -> UInt64 {
        let key = ledger.open()
        gather(.open(key, table))
        feed.connect { [self] event in gather(event.map { .event(key, $0) } ?? .finished(key)) }
        return key
    }

    /// Waits until every event of table `key` is shown (its feed finished), or
    /// it is no longer followed; true when its match's end was shown.
    func ended(_ key: UInt64) async -> Bool { await ledger.ended(key) }

    /// Stops showing table `key` (the hall stops: its match is left for now);
    /// `ended` returns false at once.
    func stopFollowing(_ key: UInt64) { ledger.resolve(key, ended: false, dropping: true) }

    /// Shows what is still gathered, and returns once it is shown.
    func finish() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.async { [self] in
                show()
                done.resume()
            }
        }
    }

    private func gather(_ item: Item) {
        let schedules = pending.add(item)
        guard schedules else { return }
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(Self.gathering.wholeNanoseconds))) { [self] in show() }
    }

    /// On `queue`: shows everything gathered, in order.
    private func show() {
        let items = pending.take()
        for item in items {
            switch item {
            case .open(let key, let table):
                screen.tables[key] = (table, table.initial, false)
            case .event(let key, let event):
                guard var entry = screen.tables[key], !ledger.isDropped(key) else { continue }
                Self.show(event, of: &entry, board: screen.board, announcer: screen.announcer)
                screen.tables[key] = entry
            case .finished(let key):
                ledger.resolve(key, ended: screen.tables.removeValue(forKey: key)?.ended ?? false)
            }
        }
    }

    /// What a table's task did with each of its events: the board's row, the
    /// `--json` line, and (lines only) the result.
    private static func show(_ event: MatchEvent, of entry: inout (table: Table, current: MatchState, ended: Bool),
                             board: HallBoard, announcer: Announcer) {
        let number = entry.table.number
        if let state = event.state {
            board.update(number, state: state)
            entry.current = state
        }
        if case .talk(let line) = event { board.heard(number, line) }
        if let json = JSONEvents.logged(event, in: entry.current, localSeats: [entry.table.hostSeat]) {
            announcer.say("", event: JSONEvents.tagged(json, with: entry.table.tag))
        }
        if case .ended(let end) = event {
            entry.ended = true
            board.finished(number, state: end)
            if !announcer.json {
                announcer.say("Table \(number): \(MatchText.resultLine(end, options: .plainText(unicode: false))) "
                              + "(match \(entry.table.id.short), \(end.moves.count) moves).")
            }
        }
    }
}

/// The items gathered for `HallShows`: sixteen writer threads add to it at
/// once, under a plain pthread mutex that sleeps at once when it is taken
/// (`Mutex` spins first, and on two cores a spinning writer mostly waits
/// for one that was preempted holding it).
private final class Gathered: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [HallShows.Item] = []
    private var scheduled = false

    /// Adds `item`; true when the caller is to schedule the showing (none is scheduled).
    func add(_ item: HallShows.Item) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        items.append(item)
        guard !scheduled else { return false }
        scheduled = true
        return true
    }

    /// Everything gathered, and no showing scheduled any more.
    func take() -> [HallShows.Item] {
        lock.lock()
        defer { lock.unlock() }
        let taken = items
        items = []
        scheduled = false
        return taken
    }
}

/// What `HallShows` shows with, and every followed table's state: touched only on its queue.
private final class Screen: @unchecked Sendable {
    let board: HallBoard
    let announcer: Announcer
    var tables: [UInt64: (table: HallShows.Table, current: MatchState, ended: Bool)] = [:]

    init(board: HallBoard, announcer: Announcer) {
        self.board = board
        self.announcer = announcer
    }
}

/// How each followed table's showing ends, shared by `HallShows` and its consumer.
private final class Ledger: Sendable {
    /// Still going (with its waiter, if any), or done (whether its `.ended` was shown).
    private enum Outcome {
        case going(CheckedContinuation<Bool, Never>?)
        case done(Bool)
    }

    private let books = Mutex((next: UInt64(0), outcomes: [UInt64: Outcome](), dropped: Set<UInt64>()))

    /// A new table's key.
    func open() -> UInt64 {
        books.withLock { books -> UInt64 in
            books.next += 1
            books.outcomes[books.next] = .going(nil)
            return books.next
        }
    }

    /// Whether table `key` is no longer shown.
    func isDropped(_ key: UInt64) -> Bool { books.withLock { $0.dropped.contains(key) } }

    /// Waits for `resolve(key…)`; at once when it came first.
    func ended(_ key: UInt64) async -> Bool {
        await withCheckedContinuation { continuation in
            let known = books.withLock { books -> Bool? in
                guard case .done(let ended) = books.outcomes[key] else {
                    books.outcomes[key] = .going(continuation)
                    return nil
                }
                books.outcomes[key] = nil
                return ended
            }
            if let known { continuation.resume(returning: known) }
        }
    }

    /// Table `key`'s showing is over (`dropping`: cut short, its later events not shown).
    func resolve(_ key: UInt64, ended: Bool, dropping: Bool = false) {
        let waiter = books.withLock { books -> CheckedContinuation<Bool, Never>? in
            guard case .going(let waiter) = books.outcomes[key] else {
                // Already over; a feed's end after a drop lets the key go.
                if !dropping { books.dropped.remove(key) }
                return nil
            }
            if dropping { books.dropped.insert(key) }
            if let waiter {
                books.outcomes[key] = nil
                return waiter
            }
            books.outcomes[key] = .done(ended)
            return nil
        }
        waiter?.resume(returning: ended)
    }
}
