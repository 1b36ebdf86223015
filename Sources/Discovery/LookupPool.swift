// Which DNS-SD lookups run at once.
//
// avahi's dns_sd library gives every DNSServiceRef a thread of its own and
// a D-Bus connection of its own (DNSServiceCreateConnection and
// kDNSServiceFlagsShareConnection are "unsupported" there: avahi's
// compat.c and unsupported.c). dbus-daemon allows 256 connections per user,
// so a browse that resolved every game with refs of its own (a resolve, an
// A and an AAAA query each) had more than 256 at 85 games, and the daemon
// refused the rest (issue 40). The pool keeps at most `capacity` lookups
// open whatever the number of games: the others wait their turn, and each
// is closed as soon as it answered. A resolve that answered may stay open
// while nothing waits (it reports the game's TXT changes, e.g. open to
// playing); it is the first to close when a lookup needs its place.
// Waiting lookups go in order of what a person waits for: a join's first,
// then the resolves that put games in the list, then the address lookups
// that fill in their addresses and the re-reads of TXT records.
//
// Pure: the machine decides, the event loop starts and stops the refs.

/// Decides which lookups hold one of `capacity` places; the shell performs the actions.
struct LookupPool<Lookup: Hashable> {
    /// What the shell does next.
    enum Action: Hashable {
        /// Create the lookup's ref.
        case start(Lookup)
        /// Deallocate the lookup's ref.
        case stop(Lookup)
    }

    /// The most lookups open at once.
    let capacity: Int
    /// Started and not answered yet, oldest first.
    private(set) var running: [Lookup] = []
    /// Answered and kept open for updates while no lookup waits, oldest first.
    private(set) var watching: [Lookup] = []
    /// Waiting for a place: by priority, then in the order wanted.
    private(set) var waiting: [Lookup] = []
    /// The priority of each waiting lookup.
    private var priorities: [Lookup: Priority] = [:]

    /// Which waiting lookups go first.
    enum Priority: Int, Comparable {
        /// A join waiting for one game.
        case urgent = 0
        /// What lists a game (its resolve).
        case listing = 1
        /// What fills in a listed game (its addresses, its TXT read again).
        case filling = 2

        static func < (lhs: Priority, rhs: Priority) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// How many lookups are open now (never more than `capacity`).
    var open: Int { running.count + watching.count }

    /// Whether `lookup` is open, answered or not, or waiting.
    func contains(_ lookup: Lookup) -> Bool {
        running.contains(lookup) || watching.contains(lookup) || waiting.contains(lookup)
    }

    /// Asks for `lookup`; `urgent` ones (a join waiting for one game) go before the others.
    mutating func want(_ lookup: Lookup, urgent: Bool = false) -> [Action] {
        want(lookup, priority: urgent ? .urgent : .listing)
    }

    /// Asks for `lookup`: it waits behind those of the same or a higher priority.
    mutating func want(_ lookup: Lookup, priority: Priority) -> [Action] {
        if let index = waiting.firstIndex(of: lookup) {
            guard priority < priorities[lookup, default: .filling] else { return fill() }
            waiting.remove(at: index)
        } else if running.contains(lookup) || watching.contains(lookup) {
            return []
        }
        priorities[lookup] = priority
        let place = waiting.firstIndex { priority < priorities[$0, default: .filling] } ?? waiting.endIndex
        waiting.insert(lookup, at: place)
        return fill()
    }

    /// The lookup answered: it is closed, or with `keep` stays open for updates until its place is needed.
    mutating func answered(_ lookup: Lookup, keep: Bool) -> [Action] {
        guard let index = running.firstIndex(of: lookup) else { return [] }
        running.remove(at: index)
        var actions: [Action] = []
        if keep { watching.append(lookup) } else { actions.append(.stop(lookup)) }
        return actions + fill()
    }

    /// The lookup is no longer wanted (its game went away, its time ran out).
    mutating func cancel(_ lookup: Lookup) -> [Action] {
        if let index = waiting.firstIndex(of: lookup) {
            waiting.remove(at: index)
            priorities[lookup] = nil
            return []
        }
        if let index = running.firstIndex(of: lookup) {
            running.remove(at: index)
        } else if let index = watching.firstIndex(of: lookup) {
            watching.remove(at: index)
        } else {
            return []
        }
        return [.stop(lookup)] + fill()
    }

    /// The lookup's ref could not be made or failed (the shell already freed it): its place is free.
    mutating func failed(_ lookup: Lookup) -> [Action] {
        running.removeAll { $0 == lookup }
        watching.removeAll { $0 == lookup }
        waiting.removeAll { $0 == lookup }
        priorities[lookup] = nil
        return fill()
    }

    /// Starts waiting lookups while there is a place, closing the oldest kept ones to make room.
    private mutating func fill() -> [Action] {
        var actions: [Action] = []
        while !waiting.isEmpty {
            if open >= capacity {
                guard !watching.isEmpty else { break }
                actions.append(.stop(watching.removeFirst()))
            }
            let next = waiting.removeFirst()
            priorities[next] = nil
            running.append(next)
            actions.append(.start(next))
        }
        return actions
    }
}
