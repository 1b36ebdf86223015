// avahi's dns_sd library writes warnings straight to file descriptor 2
// (for example about calls it does not support), from its own threads.
// A full-screen terminal UI would be scribbled over, so the UI points fd 2
// at a log file (or /dev/null) while it owns the screen.

import Foundation
@preconcurrency import Glibc

/// Sends the process's standard error (file descriptor 2) to a file until `restore()`.
///
/// Use while a full-screen UI runs:
///
///     let diversion = try StandardErrorDiversion.divert(to: logPath)
///     defer { diversion.restore() }
///
/// Everything written to fd 2 by any thread or C library lands in the file
/// (appended, created with mode 0600). `restore()` puts the original fd 2
/// back; it is also called by deinit. Only one diversion should be active
/// at a time. `@unchecked Sendable`: state is guarded by `lock`.
public final class StandardErrorDiversion: @unchecked Sendable {
    private let lock = NSLock()
    private var savedDescriptor: Int32
    /// Where standard error goes while diverted.
    public let path: String

    private init(savedDescriptor: Int32, path: String) {
        self.savedDescriptor = savedDescriptor
        self.path = path
    }

    /// Points fd 2 at `path` (default /dev/null).
    /// - Throws: `DiscoveryError.cannotDivertStandardError` if the file cannot be opened; fd 2 is then unchanged.
    public static func divert(to path: String = "/dev/null") throws(DiscoveryError) -> StandardErrorDiversion {
        fflush(nil)  // every stdio stream, stderr included
        let target = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard target >= 0 else { throw .cannotDivertStandardError(path: path, errno: errno) }
        defer { close(target) }
        let saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 0)
        guard saved >= 0 else { throw .cannotDivertStandardError(path: path, errno: errno) }
        guard dup2(target, STDERR_FILENO) >= 0 else {
            let failure = errno
            close(saved)
            throw .cannotDivertStandardError(path: path, errno: failure)
        }
        return StandardErrorDiversion(savedDescriptor: saved, path: path)
    }

    /// Puts the original standard error back. Safe to call more than once.
    public func restore() {
        lock.lock()
        defer { lock.unlock() }
        guard savedDescriptor >= 0 else { return }
        fflush(nil)  // every stdio stream, stderr included
        _ = dup2(savedDescriptor, STDERR_FILENO)
        close(savedDescriptor)
        savedDescriptor = -1
    }

    deinit {
        restore()
    }
}
