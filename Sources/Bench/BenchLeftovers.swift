@preconcurrency import Glibc
import Foundation

/// The stores of bench runs that never cleaned up after themselves: killed
/// with SIGKILL, or cut short by Ctrl-C before parlor removed them on it.
/// Each bench names its store after its process (`bench-turns-PID`,
/// `bench-tables-PID-N`), so one whose process is gone is nobody's.
public enum BenchLeftovers {
    /// Removes the directories in `parent` named `prefix` followed by the id
    /// of a process that no longer runs (and, after a dash, anything); returns
    /// their names. A directory of a running process, or of this one, stays.
    public static func remove(in parent: String, prefix: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []
        var removed: [String] = []
        for name in names.sorted() where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count).prefix(while: { $0 != "-" })), pid > 0, pid != getpid(),
                  kill(pid, 0) != 0, errno == ESRCH else { continue }
            if (try? FileManager.default.removeItem(atPath: parent + "/" + name)) != nil { removed.append(name) }
        }
        return removed
    }
}
