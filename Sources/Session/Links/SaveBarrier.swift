import Synchronization

/// Counts the saves one side has asked for and those that have called back,
/// so that a change of our own can wait until the save of our previous one
/// is on disk.
///
/// The guest waits on it before it sends a change (`RemoteHost.deliver`):
/// every save asked for up to the one that first holds its previous change
/// (and the match's first save) must have called back. Its file is then
/// never more than that one new change of its own behind the host's, the
/// others' moves since aside, which is what `parlor resume` accepts
/// (`GuestRecordCheck`, docs/STORE.md "The guest's copy"). The others' moves
/// after our last change need not be on disk yet, so a guest that answers at
/// once (a bot) does not wait for the save of the move it answers.
final class SaveBarrier: Sendable {
    private struct Books {
        var asked: UInt64 = 0
        /// Saves asked for but not called back yet.
        var outstanding: Set<UInt64> = []
        /// The newest save that holds more changes of ours than any before it (or the first).
        var mark: UInt64 = 0
        /// The most changes of ours a save asked for so far holds.
        var ownChanges = -1
        var waiters: [(upTo: UInt64, resume: CheckedContinuation<Void, Never>)] = []
    }

    private let books = Mutex(Books())

    /// Notes a save about to be asked for, of a state holding `ownChanges`
    /// changes of ours; call the returned closure when it is on disk (or failed).
    func begin(ownChanges: Int) -> @Sendable () -> Void {
        let number = books.withLock { books -> UInt64 in
            books.asked += 1
            books.outstanding.insert(books.asked)
            if ownChanges > books.ownChanges {
                books.ownChanges = ownChanges
                books.mark = books.asked
            }
            return books.asked
        }
        return { [self] in finish(number) }
    }

    /// Whether every save up to the newest that holds our latest change has called back.
    var ourLastChangeIsSaved: Bool {
        books.withLock { Self.settled($0, upTo: $0.mark) }
    }

    /// Returns once every save up to the newest that holds our latest change
    /// has called back (at once when they have).
    func waitForOurLastChange() async {
        let upTo = books.withLock { $0.mark }
        if books.withLock({ Self.settled($0, upTo: upTo) }) { return }
        await withCheckedContinuation { (resume: CheckedContinuation<Void, Never>) in
            let now = books.withLock { books -> Bool in
                if Self.settled(books, upTo: upTo) { return true }
                books.waiters.append((upTo, resume))
                return false
            }
            if now { resume.resume() }
        }
    }

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
