@preconcurrency import Glibc
import Match
import Synchronization

/// The journal beside a match file (`ID-ROLE-SEAT.journal`): the changes
/// made since the match file was last written, one framed record per
/// committed change, so a committed turn costs one append and one
/// `fdatasync` instead of a new file, a rename and a directory sync.
///
/// Layout (big-endian), docs/STORE.md:
///
///     header  "PMJ\0" | format u16 = 1 | base u64
///     frame   length u32 | FNV-1a 64 of the payload u64 | payload (a whole
///             `StoredMatch` encoding, as in a match file)
///
/// `base` is the checksum that ends the match file the journal extends (its
/// last 8 bytes): a journal whose base is not the match file's is left over
/// from before the match file was rewritten, and is ignored. The frames are
/// read in order up to the first one that is cut short, fails its checksum,
/// or holds another match: that frame and everything after it are a torn
/// tail and are dropped. The last good frame is the record; with none, the
/// match file is.
public enum MatchJournal {
    static let magic: [UInt8] = [0x50, 0x4D, 0x4A, 0x00]  // "PMJ\0"
    static let format: UInt16 = 1
    /// Bytes before the first frame.
    public static let headerSize = 14
    /// Bytes before each frame's payload.
    public static let frameHeaderSize = 12
    /// Beyond this many bytes the recorder folds the journal into the match file.
    public static let compactionThreshold = 64 * 1024

    /// The journal's first bytes, for a journal extending the match file `base` ends with.
    public static func header(base: UInt64) -> [UInt8] {
        var writer = ByteWriter(capacity: headerSize)
        writer.write(bytes: magic)
        writer.write(format)
        writer.write(base)
        return writer.bytes
    }

    /// One record, framed for appending.
    public static func frame(_ record: StoredMatch) -> [UInt8] {
        let payload = record.encoded()
        var writer = ByteWriter(capacity: frameHeaderSize + payload.count)
        writer.write(UInt32(payload.count))
        writer.write(fnv1a64(payload))
        writer.write(bytes: payload)
        return writer.bytes
    }

    /// The checksum a match file ends with: what a journal extending it names as its base.
    public static func base(ofMatchFile bytes: [UInt8]) -> UInt64 {
        bytes.suffix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// What a journal adds to `base` (the record read from a match file whose
    /// checksum is `baseChecksum`): the records of its good frames in order,
    /// and how many bytes they take (header included). Nil when the bytes are
    /// not a journal of this match file (too short, another format, another
    /// base): then the match file stands alone. Never traps on any bytes.
    public static func replay(_ journal: [UInt8], over base: StoredMatch, baseChecksum: UInt64)
        -> (records: [StoredMatch], goodLength: Int)? {
        guard journal.count >= headerSize, Array(journal.prefix(4)) == magic else { return nil }
        var reader = ByteReader(journal, offset: 4)
        guard let version = try? reader.readUInt16(), version == format,
              let named = try? reader.readUInt64(), named == baseChecksum else { return nil }
        var records: [StoredMatch] = []
        var offset = headerSize
        while journal.count - offset >= frameHeaderSize {
            var frame = ByteReader(journal, offset: offset)
            guard let length = try? frame.readUInt32(), let checksum = try? frame.readUInt64(),
                  Int(length) <= StoredMatch.maximumFileSize,
                  journal.count - offset - frameHeaderSize >= Int(length) else { break }
            let start = offset + frameHeaderSize
            let payload = Array(journal[start..<(start + Int(length))])
            guard fnv1a64(payload) == checksum,
                  let record = try? StoredMatch(decoding: payload),
                  record.state.matchID == base.state.matchID, record.role == base.role,
                  record.localSeat == base.localSeat else { break }
            records.append(record)
            offset = start + Int(length)
        }
        return (records, offset)
    }
}

/// One side's open journal: appends framed records, made durable by the
/// writer's round (one `fdatasync`, or one `syncfs` for a round's journals). Used only on the store's writer thread (`DurableWriter`),
/// never on the cooperative pool.
final class JournalFile: @unchecked Sendable {
    // @unchecked: every use is on the DurableWriter's one thread, in order.
    let path: String
    private let descriptor: Int32
    /// Bytes of header and frames written, synced or waiting for their round's sync.
    private(set) var length: Int
    /// Bytes of header and frames known to be on disk; a failed write or sync is cut back to this.
    private var durableLength: Int
    /// Set when a failed append could not be cut back: the next save starts a fresh journal.
    private(set) var broken = false

    private init(path: String, descriptor: Int32, length: Int) {
        self.path = path
        self.descriptor = descriptor
        self.length = length
        self.durableLength = length
    }

    /// Whether frames were written that no sync has covered yet.
    var hasPending: Bool { length > durableLength }

    deinit { close(descriptor) }

    /// Called with the journal's path just before each append's sync: tests make a sync slow through it.
    static let beforeSync = Mutex<(@Sendable (String) -> Void)?>(nil)

    /// Starts the journal at `path` afresh, extending the match file that ends
    /// with `base`: header written and synced; the directory synced too when
    /// the file is new (so the name itself survives a crash).
    static func start(path: String, directory: String, base: UInt64) throws(StoreError) -> JournalFile {
        var created = true
        var fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if fd < 0, errno == EEXIST {
            created = false
            fd = open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC)
        }
        guard fd >= 0 else { throw .system(call: "open", path: path, errno: errno) }
        let journal = JournalFile(path: path, descriptor: fd, length: 0)
        if ftruncate(fd, 0) != 0 { throw .system(call: "ftruncate", path: path, errno: errno) }
        try journal.writeAll(MatchJournal.header(base: base))
        if fdatasync(fd) != 0 { throw .system(call: "fdatasync", path: path, errno: errno) }
        journal.length = MatchJournal.headerSize
        journal.durableLength = MatchJournal.headerSize
        if created { try syncDirectory(directory) }
        return journal
    }

    /// Writes `frame` after the frames written so far, not yet synced (its
    /// round's sync makes it durable: `syncPending`, or `syncFileSystem` and
    /// `markSynced`). A failed write is cut back to what was written before it.
    func writeFrame(_ frame: [UInt8]) throws(StoreError) {
        do throws(StoreError) {
            try writeAll(frame, at: length)
            length += frame.count
        } catch {
            if ftruncate(descriptor, off_t(length)) != 0 { broken = true }
            throw error
        }
    }

    /// One `fdatasync` for every frame written since the last: nil when they
    /// are on disk; else the journal is cut back to its last durable frame.
    func syncPending() -> StoreError? {
        guard hasPending else { return nil }
        if let hook = Self.beforeSync.withLock({ $0 }) { hook(path) }
        guard fdatasync(descriptor) == 0 else {
            let error = StoreError.system(call: "fdatasync", path: path, errno: errno)
            cutBack()
            return error
        }
        durableLength = length
        return nil
    }

    /// One `syncfs` for the whole file system this journal is on, covering
    /// every journal a round wrote to (group commit); true when it returned 0.
    /// Each journal it covered is then `markSynced`.
    func syncFileSystem() -> Bool {
        if let hook = Self.beforeSync.withLock({ $0 }) { hook(path) }
        guard let syncfs = Self.syncfs else { return false }
        return syncfs(descriptor) == 0
    }

    /// The C library's `syncfs(2)`, which Swift's Glibc module leaves out; nil if it has none.
    private static let syncfs: (@convention(c) (Int32) -> Int32)? = {
        guard let symbol = dlsym(nil, "syncfs") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Int32).self)
    }()

    /// The frames written are on disk (a `syncFileSystem` that covered them returned 0).
    func markSynced() -> StoreError? {
        durableLength = length
        return nil
    }

    private func cutBack() {
        if ftruncate(descriptor, off_t(durableLength)) != 0 { broken = true }
        length = durableLength
    }

    private func writeAll(_ bytes: [UInt8], at start: Int? = nil) throws(StoreError) {
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { raw in
                let base = raw.baseAddress! + written
                return start.map { pwrite(descriptor, base, bytes.count - written, off_t($0 + written)) }
                    ?? write(descriptor, base, bytes.count - written)
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw .system(call: "write", path: path, errno: errno)
            }
            written += result
        }
    }
}

/// Syncs a directory, so names created or renamed in it survive a crash.
func syncDirectory(_ directory: String) throws(StoreError) {
    let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { throw .system(call: "open", path: directory, errno: errno) }
    defer { close(fd) }
    if fsync(fd) != 0 { throw .system(call: "fsync", path: directory, errno: errno) }
}
