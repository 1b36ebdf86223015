import Synchronization

/// Counts the saves one side has asked for and those that have called back,
/// so that something can wait until every save asked for so far is on disk.
///
/// The guest waits on it before it sends a change of its own: its file is
/// then never more than that one change behind the host's, which is what
/// `parlor resume` checks (docs/STORE.md, "The guest's copy"). Saves call
/// back in the order they were asked for (one writer per recorder), but the
/// count does not rely on it: a callback marks its own save, and a wait ends
/// once every save asked for before it has called back.
final class SaveBarrier: Sendable {
    private struct Books {
        var asked: UInt64 = 0
        /// Saves asked for but not called back yet.
        var outstanding: Set<UInt64> = []
        var waiters: [(upTo: UInt64, resume: CheckedContinuation<Void, Never>)] = []
    }

    private let books = Mutex(Books())

    /// Notes a save about to be asked for; call the returned closure when it is on disk (or failed).
    func begin() -> @Sendable () -> Void {
        let number = books.withLock { books -> UInt64 in
            books.asked += 1
            books.outstanding.insert(books.asked)
            return books.asked
        }
        return { [self] in finish(number) }
    }

    /// Returns once every save asked for before the call has called back (at once when none is outstanding).
    func waitForSavesAskedSoFar() async {
        let upTo = books.withLock { $0.asked }
        if isSettled(upTo: upTo) { return }
        await withCheckedContinuation { (resume: CheckedContinuation<Void, Never>) in
            let now = books.withLock { books -> Bool in
                if Self.settled(books, upTo: upTo) { return true }
                books.waiters.append((upTo, resume))
                return false
            }
            if now { resume.resume() }
        }
    }

    private func isSettled(upTo: UInt64) -> Bool { books.withLock { Self.settled($0, upTo: upTo) } }

    private static func settled(_ books: Books, upTo: UInt64) -> Bool {
        books.outstanding.allSatisfy { $0 > upTo }
    }

    private func finish(_ number: UInt64) {
        let ready = books.withLock { books -> [CheckedContinuation<Void, Never>] in
            books.outstanding.remove(number)
            let waiters = books.waiters
            let done = waiters.filter { Self.settled(books, upTo: $0.upTo) }
            books.waiters = waiters.filter { !Self.settled(books, upTo: $0.upTo) }
            return done.map(\.resume)
        }
        for resume in ready { resume.resume() }
    }
}
