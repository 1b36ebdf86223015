#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What is wrong inside an identity file (with `KeyFileError.damaged`).
public enum KeyFileDamage: Equatable, Sendable {
    /// The file is not UTF-8 text, or is larger than any identity file.
    case notText
    /// The first line is not `parlor-identity <version>`.
    case missingVersionLine
    /// A version this parlor does not know (a newer parlor wrote it).
    case unknownVersion(String)
    /// A line that is not `field value`, or a field this version does not have.
    case unknownLine(String)
    /// A field given twice.
    case duplicateField(String)
    /// A field whose value is not 64 hex digits.
    case badValue(field: String)
    /// A required field is absent.
    case missingField(String)
    /// The public key does not belong to the seed: the file was edited or mixed up.
    case publicKeyMismatch
}

/// Why an identity file could not be read or written. Each case names the path.
public enum KeyFileError: Error, Equatable, Sendable {
    /// No file at `path` (on first use, make a key and write it).
    case notFound(path: String)
    /// The file exists but could not be opened or read (`call` failed with `errno`).
    case unreadable(path: String, call: String, errno: Int32)
    /// Not a regular file (a directory, a device, …).
    case notAFile(path: String)
    /// Group or others may read or write the file; `mode` is its permission
    /// bits. Fix with `chmod 600`, or make a new key if others may have seen it.
    case loosePermissions(path: String, mode: UInt32)
    /// The file's contents are damaged; `line` is 1-based (0: the whole file).
    case damaged(path: String, line: Int, reason: KeyFileDamage)
    /// Writing failed (`call` failed with `errno`); the old file, if any, is untouched.
    case unwritable(path: String, call: String, errno: Int32)
}

extension KeyFileDamage: CustomStringConvertible {
    /// What is wrong with the file, as the end of a sentence a player reads:
    /// "its public key does not belong to its seed".
    public var description: String {
        switch self {
        case .notText: "not a parlor key file"
        case .missingVersionLine: "no 'parlor-identity' line first"
        case .unknownVersion(let version): "version \(version), written by a newer parlor"
        case .unknownLine(let line): "an unknown line '\(line.prefix(40))'"
        case .duplicateField(let field): "'\(field)' given twice"
        case .badValue(let field): "'\(field)' is not 64 hex digits"
        case .missingField(let field): "no '\(field)'"
        case .publicKeyMismatch: "its public key does not belong to its seed"
        }
    }
}

extension KeyFileError: CustomStringConvertible {
    /// A sentence for the player: what is wrong with the file and how to fix it.
    public var description: String {
        let remake = "remove it and a new key is made (players who know you will see it changed)"
        switch self {
        case .notFound(let path):
            return "your player key \(path) is missing"
        case .unreadable(let path, let call, let code):
            return "cannot read your player key \(path): \(call): \(String(cString: strerror(code)))"
        case .notAFile(let path):
            return "your player key \(path) is not a regular file; move it away and a new key is made"
        case .loosePermissions(let path, let mode):
            return "your player key \(path) can be read by others (mode \(String(mode, radix: 8))): run chmod 600 \(path); "
                + "if someone else may have copied it, \(remake)"
        case .damaged(let path, let line, let reason):
            return "your player key \(path) is damaged (\(line > 0 ? "line \(line): " : "")\(reason)); restore it from a backup, or \(remake)"
        case .unwritable(let path, let call, let code):
            return "cannot save your new player key \(path): \(call): \(String(cString: strerror(code)))"
        }
    }
}

/// The identity key file: a small text format, read and written whole.
///
///     parlor-identity 1
///     # parlor player identity (Ed25519). Keep this file private: mode 0600.
///     public-key <64 hex digits: the Ed25519 public key>
///     seed <64 hex digits: the Ed25519 seed>
///
/// Lines starting with `#` and blank lines are ignored; the first line is the
/// version. The public key is redundant (it follows from the seed) and is
/// checked, so a hand-edited or truncated file is refused rather than used.
///
/// `read` and `write` block on the file system (and `write` on `fsync`):
/// call them from a dedicated thread, not from the cooperative pool.
public enum IdentityFile {
    /// The format version this parlor writes and reads.
    public static let version = 1
    static let versionKeyword = "parlor-identity"
    static let maximumSize = 4096

    /// The file's text for `key`.
    public static func format(_ key: IdentityKeyPair) -> String {
        """
        \(versionKeyword) \(version)
        # parlor player identity (Ed25519). Keep this file private: mode 0600.
        public-key \(Hex.encode(key.publicKey.bytes))
        seed \(Hex.encode(key.seed))

        """
    }

    /// The key in a file's text; `path` only names the file in errors.
    ///
    /// - Throws: `KeyFileError.damaged` with the line and the reason.
    public static func parse(_ text: String, path: String) throws(KeyFileError) -> IdentityKeyPair {
        var sawVersion = false
        var fields: [String: [UInt8]] = [:]
        var seedLine = 0
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            let line = rawLine.trimmingWhitespace()
            if !sawVersion {
                let parts = line.split(separator: " ", omittingEmptySubsequences: true)
                guard parts.count == 2, parts[0] == versionKeyword else {
                    throw .damaged(path: path, line: number, reason: .missingVersionLine)
                }
                guard parts[1] == String(version) else {
                    throw .damaged(path: path, line: number, reason: .unknownVersion(String(parts[1])))
                }
                sawVersion = true
                continue
            }
            if line.isEmpty || line.hasPrefix("#") { continue }
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count == 2, ["public-key", "seed"].contains(parts[0]) else {
                throw .damaged(path: path, line: number, reason: .unknownLine(String(line.prefix(40))))
            }
            let field = String(parts[0])
            guard fields[field] == nil else { throw .damaged(path: path, line: number, reason: .duplicateField(field)) }
            guard parts[1].utf8.count == 64, let value = Hex.decode(parts[1]) else {
                throw .damaged(path: path, line: number, reason: .badValue(field: field))
            }
            fields[field] = value
            if field == "seed" { seedLine = number }
        }
        guard sawVersion else { throw .damaged(path: path, line: 1, reason: .missingVersionLine) }
        guard let seed = fields["seed"] else { throw .damaged(path: path, line: 0, reason: .missingField("seed")) }
        guard let publicKey = fields["public-key"] else {
            throw .damaged(path: path, line: 0, reason: .missingField("public-key"))
        }
        guard let key = try? IdentityKeyPair(seed: seed) else {
            throw .damaged(path: path, line: seedLine, reason: .badValue(field: "seed"))
        }
        guard key.publicKey.bytes == publicKey else { throw .damaged(path: path, line: 0, reason: .publicKeyMismatch) }
        return key
    }

    /// Reads the identity at `path`, refusing a file that group or others can access.
    ///
    /// - Throws: `KeyFileError` (`notFound` when there is no file yet).
    public static func read(from path: String) throws(KeyFileError) -> IdentityKeyPair {
        let descriptor = retryingInterrupts { open(path, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { throw .notFound(path: path) }
            throw .unreadable(path: path, call: "open", errno: code)
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .unreadable(path: path, call: "fstat", errno: errno) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw .notAFile(path: path) }
        let permissions = UInt32(status.st_mode) & 0o777
        guard permissions & 0o077 == 0 else { throw .loosePermissions(path: path, mode: permissions) }
        guard Int(status.st_size) <= maximumSize else { throw .damaged(path: path, line: 0, reason: .notText) }

        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                retryingInterrupts { Glibc.read(descriptor, buffer.baseAddress, buffer.count) }
            }
            guard count >= 0 else { throw .unreadable(path: path, call: "read", errno: errno) }
            if count == 0 { break }
            contents += chunk[0..<count]
            guard contents.count <= maximumSize else { throw .damaged(path: path, line: 0, reason: .notText) }
        }
        guard let text = String(validating: contents, as: UTF8.self) else {
            throw .damaged(path: path, line: 0, reason: .notText)
        }
        return try parse(text, path: path)
    }

    /// Writes `key` to `path` atomically with mode 0600: a temporary file in
    /// the same directory, created 0600, synced, renamed over `path`, and the
    /// directory synced. A crash leaves the old file or the new one, never half.
    ///
    /// - Throws: `KeyFileError.unwritable` naming the call that failed.
    public static func write(_ key: IdentityKeyPair, to path: String) throws(KeyFileError) {
        let temporary = "\(path).tmp-\(getpid())"
        let descriptor = retryingInterrupts { open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        guard descriptor >= 0 else { throw .unwritable(path: path, call: "open", errno: errno) }
        var closed = false
        defer {
            if !closed { close(descriptor) }
        }
        do throws(KeyFileError) {
            // The umask can only remove bits; set exactly 0600 in case it removed the owner's.
            guard fchmod(descriptor, 0o600) == 0 else { throw .unwritable(path: path, call: "fchmod", errno: errno) }
            var remaining = Array(format(key).utf8)[...]
            while !remaining.isEmpty {
                let written = remaining.withUnsafeBytes { buffer in
                    retryingInterrupts { Glibc.write(descriptor, buffer.baseAddress, buffer.count) }
                }
                guard written > 0 else { throw .unwritable(path: path, call: "write", errno: errno) }
                remaining = remaining.dropFirst(written)
            }
            guard fsync(descriptor) == 0 else { throw .unwritable(path: path, call: "fsync", errno: errno) }
            closed = true
            guard close(descriptor) == 0 else { throw .unwritable(path: path, call: "close", errno: errno) }
            guard rename(temporary, path) == 0 else { throw .unwritable(path: path, call: "rename", errno: errno) }
        } catch {
            unlink(temporary)
            throw error
        }
        syncDirectory(containing: path)
    }

    /// Makes the rename durable; a failure here leaves the file correct, so it is not reported.
    private static func syncDirectory(containing path: String) {
        let directory: String
        if let slash = path.lastIndex(of: "/") {
            directory = slash == path.startIndex ? "/" : String(path[..<slash])
        } else {
            directory = "."
        }
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }

    private static func retryingInterrupts<Result: BinaryInteger>(_ call: () -> Result) -> Result {
        while true {
            let result = call()
            if result >= 0 || errno != EINTR { return result }
        }
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces, tabs and carriage returns.
    func trimmingWhitespace() -> Substring {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" || first == "\r" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text.removeLast() }
        return text
    }
}
