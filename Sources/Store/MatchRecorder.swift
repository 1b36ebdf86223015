@preconcurrency import Glibc
import Match

/// Keeps a match on disk while it is played: saves after every committed
/// change, adoption and ending, so a crash at any instant leaves the last
/// committed state (see `MatchStore.save`).
///
/// Failures to save are collected, not fatal: a full disk must not end a
/// match. `problems` tells the caller what to report.
public actor MatchRecorder {
    private let store: MatchStore
    private var record: StoredMatch
    /// Save errors met so far, newest last.
    public private(set) var problems: [String] = []

    /// A recorder for the match in `record`; nothing is written until `follow` sees the first event.
    public init(store: MatchStore, record: StoredMatch) {
        self.store = store
        var record = record
        record.writerPID = getpid()
        self.record = record
    }

    /// Saves on every event of `controller` until its stream ends. Subscribe before the controller starts.
    public func follow(_ controller: MatchController) async -> Task<Void, Never> {
        let events = await controller.events()
        return Task {
            for await event in events { self.handle(event) }
        }
    }

    private func handle(_ event: MatchEvent) {
        switch event {
        case .started(let state), .committed(_, let state), .adopted(let state), .rolledBack(_, _, let state):
            save(state, phase: state.isEnded ? .ended : .playing)
        case .ended(let state):
            save(state, phase: .ended)
        case .failed(let failure, let state):
            // A lost connection can be resumed; a desync keeps the last good state for the record.
            save(state, phase: state.isEnded ? .ended : (failure.isResumable ? .interrupted : .playing))
        case .turnBegan, .awaitingConfirmation, .notice:
            break
        }
    }

    /// Marks the match as interrupted (e.g. the terminal went away) and saves it.
    public func markInterrupted() {
        guard !record.state.isEnded else { return }
        save(record.state, phase: .interrupted)
    }

    /// The last record written (or to be written).
    public var current: StoredMatch { record }

    private func save(_ state: MatchState, phase: StoredMatch.Phase) {
        record.state = state
        record.phase = phase
        record.lastActivity = wallClockMilliseconds()
        do { try store.save(record) } catch { problems.append(error.description) }
    }
}

extension MatchFailure {
    /// Whether the match can go on later with `parlor resume`.
    public var isResumable: Bool {
        if case .connectionLost = self { return true }
        return false
    }
}

/// This installation's stable player id, kept in the store's parent directory.
public enum PlayerIdentity {
    /// Loads the id from `directory/identity`, creating it on first use; a
    /// damaged or unwritable file gives a fresh id for this run instead of failing.
    public static func load(directory: String) -> PlayerID {
        let path = directory + "/identity"
        if let text = readSmallFile(path), let id = PlayerID(hex: text.trimmingCharacters()) { return id }
        let id = PlayerID.random()
        _ = mkdir(directory, 0o700)
        let fd = open(path + ".\(getpid()).tmp", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        if fd >= 0 {
            let text = Array((id.hex + "\n").utf8)
            let written = text.withUnsafeBytes { write(fd, $0.baseAddress, text.count) }
            _ = fsync(fd)
            close(fd)
            if written == text.count { rename(path + ".\(getpid()).tmp", path) } else { unlink(path + ".\(getpid()).tmp") }
        }
        return id
    }

    private static func readSmallFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, 128) }
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }
}

extension String {
    fileprivate func trimmingCharacters() -> String {
        String(unicodeScalars.filter { !$0.properties.isWhitespace })
    }
}
