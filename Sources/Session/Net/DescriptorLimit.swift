// Every connection costs a descriptor; the soft limit is often 1024, too
// low for a thousand sessions plus their listeners.
@preconcurrency import Glibc

/// The process's limit on open descriptors, which caps concurrent connections.
public enum DescriptorLimit {
    /// The current soft and hard limits (`RLIMIT_NOFILE`).
    ///
    /// Throws `NetError.systemCall` if getrlimit fails.
    public static func current() throws(NetError) -> (soft: UInt64, hard: UInt64) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
            throw NetError.systemCall(SystemCallError(call: "getrlimit(RLIMIT_NOFILE)", errno: errno))
        }
        return (UInt64(limit.rlim_cur), UInt64(limit.rlim_max))
    }

    /// Raises the soft limit towards the hard limit (never above `cap`, never
    /// lowering it) and returns the soft limit now in force.
    ///
    /// Call once at start-up in a process that will serve many connections.
    /// Keep a cap on pending connections well below the result: when the
    /// process runs out, the listener pauses (see `TCPListener`), but other
    /// parts of the runtime may not cope (libdispatch traps if it cannot
    /// create its own epoll descriptor on first use of a timer).
    public static func raise(upTo cap: UInt64 = 65_536) throws(NetError) -> UInt64 {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
            throw NetError.systemCall(SystemCallError(call: "getrlimit(RLIMIT_NOFILE)", errno: errno))
        }
        let target = min(UInt64(limit.rlim_max), cap)
        guard target > UInt64(limit.rlim_cur) else { return UInt64(limit.rlim_cur) }
        limit.rlim_cur = rlim_t(target)
        guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
            throw NetError.systemCall(SystemCallError(call: "setrlimit(RLIMIT_NOFILE)", errno: errno))
        }
        return target
    }
}
