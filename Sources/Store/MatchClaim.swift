@preconcurrency import Glibc
import Match
import Synchronization

/// One process's hold on one side of one match, for as long as it plays it.
///
/// The hold is an exclusive `flock` on the match's lock file in the store
/// (`.ID-ROLE-SEAT.lock`, beside the match file), so the kernel releases it
/// the instant the process dies, whatever kills it; no process id is trusted
/// (a pid can be reused, and parlor may be pid 1 of a container).
///
/// Claims of one side inside one process share the lock (the resume handler
/// and the recorder both claim it); the lock goes when the last is released.
/// Release unlinks the lock file while still holding it; a claimer that
/// opened the old file checks after locking that the name still leads to it.
public final class MatchClaim: Sendable {
    /// The lock file.
    public let path: String
    private let released = Atomic<Bool>(false)

    private struct Held { var descriptor: Int32; var claims: Int }
    /// Lock files this process holds, by path.
    private static let held = Mutex<[String: Held]>([:])

    private init(path: String) { self.path = path }

    deinit { release() }

    /// Gives up this claim; the lock goes with the last claim of this process. Safe to call twice.
    public func release() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Self.held.withLock { held in
            guard var entry = held[path] else { return }
            entry.claims -= 1
            if entry.claims > 0 { held[path] = entry; return }
            held[path] = nil
            unlink(path)
            close(entry.descriptor)
        }
    }

    /// Claims the lock file at `path`: a shared claim when this process holds
    /// it already, else the exclusive lock. Nil when another process holds it
    /// (after a short retry: a reader probing the lock holds it a moment).
    static func claim(path: String) throws(StoreError) -> MatchClaim? {
        let shared = held.withLock { held -> Bool in
            guard var entry = held[path] else { return false }
            entry.claims += 1
            held[path] = entry
            return true
        }
        if shared { return MatchClaim(path: path) }
        let deadline = ContinuousClock.now + .milliseconds(300)
        while true {
            let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw .system(call: "open", path: path, errno: errno) }
            if flock(fd, LOCK_EX | LOCK_NB) == 0 {
                // The file may have been unlinked by its last holder between our open and our lock.
                if sameFile(fd, path) {
                    let text = Array("\(getpid())\n".utf8)
                    _ = ftruncate(fd, 0)
                    _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, text.count, 0) }
                    held.withLock { $0[path] = Held(descriptor: fd, claims: 1) }
                    return MatchClaim(path: path)
                }
                close(fd)
                continue
            }
            let code = errno
            close(fd)
            guard code == EWOULDBLOCK || code == EINTR else { throw .system(call: "flock", path: path, errno: code) }
            if ContinuousClock.now >= deadline { return nil }
            usleep(10_000)
        }
    }

    /// Whether some process, this one included, holds the lock file at `path` now.
    static func isHeld(path: String) -> Bool {
        if held.withLock({ $0[path] != nil }) { return true }
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard flock(fd, LOCK_SH | LOCK_NB) != 0 else { return false }
        return errno == EWOULDBLOCK
    }

    /// The process that holds the lock file at `path`, as it wrote itself there; nil if none or unknown.
    static func holder(path: String) -> Int32? {
        guard isHeld(path: path) else { return nil }
        if held.withLock({ $0[path] != nil }) { return getpid() }
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[0..<count], as: UTF8.self).filter(\.isNumber))
    }

    /// Removes the lock file at `path` when nobody holds it (a process killed while it played).
    static func removeIfStale(path: String) {
        if held.withLock({ $0[path] != nil }) { return }
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0, sameFile(fd, path) else { return }
        unlink(path)
    }

    /// Whether `fd` is still the file named `path` (no one unlinked or replaced it).
    static func sameFile(_ fd: Int32, _ path: String) -> Bool {
        var opened = stat(), named = stat()
        guard fstat(fd, &opened) == 0, lstat(path, &named) == 0 else { return false }
        return opened.st_dev == named.st_dev && opened.st_ino == named.st_ino
    }
}

/// Which saved match `parlor resume` should take.
public enum ResumeRequest: Sendable {
    /// The most recently interrupted match.
    case newest
    /// The most recently interrupted match joined as a guest (resume by HOST:PORT).
    case newestJoined
    /// The match whose id starts with this (the host's side when this store holds both).
    case match(String)
}

/// Why `parlor resume` found nothing to resume.
public enum ResumeRefusal: Error, Sendable, CustomStringConvertible {
    /// The store holds no match at all.
    case nothingSaved
    /// No saved match is interrupted.
    case nothingInterrupted
    /// No interrupted match was joined as a guest.
    case nothingJoined
    /// The match is over.
    case over(MatchID)
    /// Another process plays the match now (its pid when known).
    case inPlay(MatchID, process: Int32?)
    /// Finding the match by id failed.
    case store(StoreError)

    /// What was found, in a sentence; a program adds what its user can do next
    /// (parlor's own commands are named by ParlorCLI, not here).
    public var description: String {
        switch self {
        case .nothingSaved: "there is no saved match to resume"
        case .nothingInterrupted: "no interrupted match is saved here"
        case .nothingJoined: "no interrupted match joined as a guest is saved here"
        case .over(let id): "match \(id.short) is over"
        case .inPlay(let id, let process):
            "match \(id.short) is being played right now\(process.map { " (by process \($0))" } ?? ""); "
                + "it can be resumed once that process has ended"
        case .store(let error): error.description
        }
    }
}

extension MatchStore {
    /// The lock file held while a process plays `record`'s side of its match.
    public func lockPath(for record: StoredMatch) -> String {
        directory + "/." + Self.fileName(matchID: record.state.matchID, role: record.role, seat: record.localSeat)
            .dropLast(".match".count) + ".lock"
    }

    /// Claims `record`'s side of its match for this process while it plays it;
    /// nil when another process plays it now. Release the claim (or drop it) when done.
    public func claim(_ record: StoredMatch) throws(StoreError) -> MatchClaim? {
        try makeDirectory(directory)
        return try MatchClaim.claim(path: lockPath(for: record))
    }

    /// Where `record` stands now, the one place that decides it: ended when
    /// every seat has its outcome (or it was saved ended); interrupted when it
    /// was saved so (the side left, or the link was lost for good); saved as
    /// playing, it is playing while some process holds its lock, and
    /// interrupted once none does (the process died).
    public func phase(of record: StoredMatch) -> StoredMatch.Phase {
        if record.phase == .ended || record.state.isEnded { return .ended }
        if record.phase == .interrupted { return .interrupted }
        return MatchClaim.isHeld(path: lockPath(for: record)) ? .playing : .interrupted
    }

    /// Picks the saved match `parlor resume` continues and claims it, so two
    /// resumes of one match never both run: the newest interrupted one (a
    /// guest's for `.newestJoined`), or the one named by id. Offline matches
    /// (against a bot, or hot seat) are resumable too, on this machine.
    public func claimForResume(_ request: ResumeRequest) throws(ResumeRefusal) -> (StoredMatch, MatchClaim) {
        let records = list().matches
        let resumable = records.filter { $0.phase == .interrupted }
        let chosen: StoredMatch
        switch request {
        case .newest:
            guard let newest = resumable.first else { throw records.isEmpty ? .nothingSaved : .nothingInterrupted }
            chosen = newest
        case .newestJoined:
            guard let newest = resumable.first(where: { $0.role == .guest }) else { throw .nothingJoined }
            chosen = newest
        case .match(let prefix):
            let found: [StoredMatch]
            do { found = try find(prefix) } catch { throw .store(error) }
            let sides = found.sorted { $0.role == .host && $1.role != .host }
            if let side = sides.first(where: { $0.phase == .interrupted }) {
                chosen = side
            } else {
                let any = sides[0]
                switch any.phase {
                case .ended where any.role == .host:
                    // The host's copy is over: serve it, so a guest whose copy is behind learns the end.
                    chosen = any
                case .ended: throw .over(any.state.matchID)
                case .playing, .interrupted:
                    throw .inPlay(any.state.matchID, process: MatchClaim.holder(path: lockPath(for: any)))
                }
            }
        }
        let claim: MatchClaim?
        do { claim = try self.claim(chosen) } catch { throw .store(error) }
        guard let claim else {
            throw .inPlay(chosen.state.matchID, process: MatchClaim.holder(path: lockPath(for: chosen)))
        }
        return (chosen, claim)
    }
}
