@preconcurrency import Glibc
import Match
import Synchronization

/// A damaged or unreadable file met while listing, reported by name and skipped.
public struct StoreProblem: Sendable, CustomStringConvertible {
    /// The file that could not be read.
    public var path: String
    /// Why, in words.
    public var reason: String
    /// The file and why, as `parlor matches` prints it.
    public var description: String { "\(path): \(reason)" }
}

/// Errors from the store's file operations, carrying errno and the call's name.
public enum StoreError: Error, Sendable, CustomStringConvertible {
    /// A system call on a file failed.
    case system(call: String, path: String, errno: Int32)
    /// No saved match has an id starting with this.
    case notFound(String)
    /// Several saved matches start with this; their short ids.
    case ambiguous(String, [String])
    /// The file is not a readable match.
    case unreadable(String, StoredMatchError)

    /// A sentence naming the file or id and what went wrong.
    public var description: String {
        switch self {
        case .system(let call, let path, let code):
            "\(call) \(path): \(String(cString: strerror(code)))"
        case .notFound(let id): "no saved match matches '\(id)'"
        case .ambiguous(let id, let candidates):
            "'\(id)' matches several saved matches: \(candidates.joined(separator: ", ")); give more of the id"
        case .unreadable(let path, let error): "\(path): \(error)"
        }
    }
}

/// Every match this user has played, one file per match and side, under
/// `$XDG_DATA_HOME/parlor/matches` (default `~/.local/share/parlor/matches`).
///
/// Writes are crash-safe (docs/STORE.md): a match file is written to a
/// temporary file in the same directory, flushed to disk, renamed over the
/// old one, and the directory is synced, so a crash at any instant leaves the
/// old or the new record, never a torn one. While a match is played, its
/// recorder appends each change to the match's journal instead (one framed
/// record and one `fdatasync` per turn, see `MatchJournal`); `load` reads the
/// match file and then the good frames of its journal. Temporary names carry
/// the writer's pid, and each rename is atomic, so two parlor processes never
/// corrupt each other's files.
/// A process playing a match holds its lock file (see `MatchClaim`), which is
/// how the store tells a match in play from one whose process died.
public struct MatchStore: Sendable {
    /// The directory holding the match files.
    public let directory: String

    /// A store in `directory` (created on first save).
    public init(directory: String) { self.directory = directory }

    /// The default place, `matches` in `dataDirectory(environment:)`.
    public static func defaultDirectory(environment: [String: String]) -> String {
        dataDirectory(environment: environment) + "/matches"
    }

    /// Where this user's parlor data lives (the match store and the player identity):
    /// `$XDG_DATA_HOME/parlor`, else `$HOME/.local/share/parlor`.
    public static func dataDirectory(environment: [String: String]) -> String {
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") { return xdg + "/parlor" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        return home + "/.local/share/parlor"
    }

    /// The file name for one side of one match: two processes of one user
    /// playing each other (host and guest) keep separate files.
    public static func fileName(matchID: MatchID, role: StoredMatch.Role, seat: Int) -> String {
        "\(matchID.hex)-\(role)-\(seat).match"
    }

    /// Where `record` is (or would be) kept.
    public func path(for record: StoredMatch) -> String {
        directory + "/" + Self.fileName(matchID: record.state.matchID, role: record.role, seat: record.localSeat)
    }

    /// The journal beside the match file at `matchPath` (`ID-ROLE-SEAT.journal`).
    public static func journalPath(forMatchFile matchPath: String) -> String {
        (matchPath.hasSuffix(".match") ? String(matchPath.dropLast(".match".count)) : matchPath) + ".journal"
    }

    /// Numbers this process's writes, so each has its own temporary file.
    static let writeCounter = Atomic<UInt64>(0)

    /// How old a temporary file must be, besides unlocked, before the store
    /// removes it as left by a killed save: a writer locks its file a moment
    /// after creating it, and this covers that moment many times over.
    static let staleTemporaryAge: Int = 60

    /// Saves `record` atomically (write, fsync, rename, fsync the directory).
    ///
    /// The temporary file is locked (`flock`) by its writer until the rename,
    /// so `list` can tell one left by a killed save from one being written.
    /// A journal left beside the file stops counting: it names the old file's checksum.
    public func save(_ record: StoredMatch) throws(StoreError) {
        _ = try writeMatchFile(record)
    }

    /// `save`, returning the bytes written (their checksum is what a journal extending them names).
    func writeMatchFile(_ record: StoredMatch) throws(StoreError) -> [UInt8] {
        let final = path(for: record)
        let bytes = record.encoded()
        var temporary = ""
        var fd: Int32 = -1
        // One temporary file per write, not per process: two saves of the same
        // match from one process (the recorder and a save before sending) must
        // not truncate each other's file before its rename. A name left by a
        // dead process whose pid this one reuses is skipped.
        for _ in 0..<8 {
            let serial = Self.writeCounter.add(1, ordering: .relaxed).newValue
            temporary = directory + "/.\(Self.fileName(matchID: record.state.matchID, role: record.role, seat: record.localSeat)).\(getpid())-\(serial).tmp"
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd < 0, errno == ENOENT {
                // The first save here: make the directory then, not on every save.
                try makeDirectory(directory)
                fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            }
            if fd >= 0 || errno != EEXIST { break }
        }
        guard fd >= 0 else { throw .system(call: "open", path: temporary, errno: errno) }
        _ = flock(fd, LOCK_EX)
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, bytes.count - written) }
            if result < 0 {
                if errno == EINTR { continue }
                let code = errno
                unlink(temporary); close(fd)
                throw .system(call: "write", path: temporary, errno: code)
            }
            written += result
        }
        if fsync(fd) != 0 {
            let code = errno
            unlink(temporary); close(fd)
            throw .system(call: "fsync", path: temporary, errno: code)
        }
        guard rename(temporary, final) == 0 else {
            let code = errno
            unlink(temporary); close(fd)
            throw .system(call: "rename", path: final, errno: code)
        }
        close(fd)
        try syncDirectory(directory)
        return bytes
    }

    /// Reads one file; its phase is where it stands now (see `phase(of:)`).
    ///
    /// The record is the match file's, or the last good frame of its journal
    /// when one extends it (a torn or damaged tail is dropped, see `MatchJournal`).
    public func load(path: String) throws(StoreError) -> StoredMatch {
        let bytes = try readFile(path, limit: StoredMatch.maximumFileSize)
        var record: StoredMatch
        do { record = try StoredMatch(decoding: bytes) } catch { throw .unreadable(path, error) }
        let journalPath = Self.journalPath(forMatchFile: path)
        var journal: [UInt8] = []
        do { journal = try readFile(journalPath, limit: Self.maximumJournalSize) } catch {
            // No journal: the match file stands alone. One that cannot be read is not skipped silently.
            guard case .system("open", _, ENOENT) = error else { throw error }
        }
        if let newest = MatchJournal.replay(journal, over: record, baseChecksum: MatchJournal.base(ofMatchFile: bytes))?.records.last {
            record = newest
        }
        record.phase = phase(of: record)
        return record
    }

    /// A journal is folded into its match file long before this; a larger one is not read.
    static let maximumJournalSize = 64 * 1024 * 1024

    /// Every readable match, newest first, each with the phase it stands in
    /// now (see `phase(of:)`), and every file that could not be read.
    ///
    /// Also removes what killed processes left behind: temporary files of
    /// saves that never finished and lock files nobody holds (see `save`).
    public func list() -> (matches: [StoredMatch], problems: [StoreProblem]) {
        guard let names = directoryEntryNames(directory) else { return ([], []) }
        var matches: [StoredMatch] = [], problems: [StoreProblem] = []
        for name in names {
            let path = directory + "/" + name
            if name.hasPrefix("."), name.contains(".match."), name.hasSuffix(".tmp") {
                removeIfAbandoned(temporary: path)
                continue
            }
            if name.hasPrefix("."), name.hasSuffix(".lock") {
                MatchClaim.removeIfStale(path: path)
                continue
            }
            guard name.hasSuffix(".match"), !name.hasPrefix(".") else { continue }
            do { matches.append(try load(path: path)) } catch {
                switch error {
                case .unreadable(_, let why): problems.append(StoreProblem(path: path, reason: why.description))
                default: problems.append(StoreProblem(path: path, reason: error.description))
                }
            }
        }
        matches.sort { $0.lastActivity > $1.lastActivity }
        return (matches, problems.sorted { $0.path < $1.path })
    }

    /// Removes a temporary file whose save never finished: unlocked (its
    /// writer is gone) and older than `staleTemporaryAge` seconds.
    private func removeIfAbandoned(temporary path: String) {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
              Int(time(nil)) - Int(info.st_mtim.tv_sec) >= Self.staleTemporaryAge,
              flock(fd, LOCK_EX | LOCK_NB) == 0, MatchClaim.sameFile(fd, path) else { return }
        unlink(path)
    }

    /// The saved matches whose id starts with `prefix` (case-insensitive).
    public func find(_ prefix: String) throws(StoreError) -> [StoredMatch] {
        let lowered = prefix.lowercased()
        let found = list().matches.filter { $0.state.matchID.hex.hasPrefix(lowered) }
        guard !found.isEmpty, !lowered.isEmpty else { throw .notFound(prefix) }
        let ids = Set(found.map { $0.state.matchID })
        guard ids.count == 1 else { throw .ambiguous(prefix, ids.map(\.short).sorted()) }
        return found
    }

    /// Deletes the files of `record` (its lock file goes with its last claim, or when found stale).
    public func remove(_ record: StoredMatch) throws(StoreError) {
        let target = path(for: record)
        guard unlink(target) == 0 || errno == ENOENT else { throw .system(call: "unlink", path: target, errno: errno) }
        let journal = Self.journalPath(forMatchFile: target)
        guard unlink(journal) == 0 || errno == ENOENT else { throw .system(call: "unlink", path: journal, errno: errno) }
    }

    func makeDirectory(_ path: String) throws(StoreError) {
        var current = ""
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            current += "/" + part
            if mkdir(current, 0o700) != 0 && errno != EEXIST {
                throw .system(call: "mkdir", path: current, errno: errno)
            }
        }
    }

    /// Reads a regular file; a FIFO, device or directory is refused by name
    /// at once (opened without blocking, so a FIFO with no writer never hangs).
    private func readFile(_ path: String, limit: Int) throws(StoreError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { throw .system(call: "open", path: path, errno: errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .system(call: "fstat", path: path, errno: errno) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .unreadable(path, .notARegularFile) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .system(call: "read", path: path, errno: errno)
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > limit { throw .unreadable(path, .invalidField("size (over \(limit) bytes)")) }
        }
        return bytes
    }
}

extension MatchStore {
    /// Makes the store's directory (and its parents) now rather than at the first save.
    public func createDirectory() throws(StoreError) { try makeDirectory(directory) }

    /// Throws when no match could be saved here now: the directory cannot be
    /// made, or it is on a read-only file system or not writable by this user
    /// (`access(W_OK)`, which says EROFS even to root). For a host before it
    /// listens, so no guest is welcomed into a match that cannot be saved.
    public func checkWritable() throws(StoreError) {
        try makeDirectory(directory)
        if access(directory, W_OK) != 0 { throw .system(call: "access", path: directory, errno: errno) }
    }
}

extension MatchStore {
    /// The other unfinished tables of the many-table host process that saved
    /// `record` (`parlor host --tables`), which `parlor resume` brings back with
    /// it: host records of two seats, interrupted, with a seat token, written by
    /// the same process (`writerPID`) on the same port. Empty for a host of one match.
    public func siblingTables(of record: StoredMatch) -> [StoredMatch] {
        guard record.role == .host, record.state.seats.count == 2, record.writerPID != 0 else { return [] }
        return list().matches.filter { other in
            other.role == .host && other.phase == .interrupted && other.writerPID == record.writerPID
                && other.listenPort == record.listenPort && other.state.matchID != record.state.matchID
                && other.state.seats.count == 2 && other.hasSeatToken
        }
    }
}
