// Linux calls that Swift's Glibc module map leaves out (sys/epoll.h,
// sys/eventfd.h, accept4, gettid), from the CLinux header-only module.
import CLinux
@preconcurrency import Glibc

/// Function entry points and constants for epoll, eventfd, accept4 and gettid.
enum LinuxCalls {
    /// The calls, as a table so callers stay independent of the C module.
    struct Table: Sendable {
        let epollCreate1: @Sendable (Int32) -> Int32
        let epollControl: @Sendable (Int32, Int32, Int32, UnsafeMutableRawPointer?) -> Int32
        let epollWait: @Sendable (Int32, UnsafeMutableRawPointer?, Int32, Int32) -> Int32
        let eventFD: @Sendable (UInt32, Int32) -> Int32
        let accept4: @Sendable (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32) -> Int32
        let getTID: @Sendable () -> Int32
    }

    /// Always present on Linux; optional only so callers keep their error path.
    static let table: Table? = Table(
        epollCreate1: { epoll_create1($0) },
        epollControl: { epoll_ctl($0, $1, $2, $3?.assumingMemoryBound(to: epoll_event.self)) },
        epollWait: { epoll_wait($0, $1?.assumingMemoryBound(to: epoll_event.self), $2, $3) },
        eventFD: { eventfd($0, $1) },
        accept4: { fd, _, _, flags in parlor_accept4(fd, flags) },
        getTID: { parlor_gettid() }
    )

    /// Names the calling thread for `ps -L`, `top -H` and perf (Foundation's
    /// `Thread.name` set before `start` does not reach the kernel on Linux).
    static func nameThisThread(_ name: String) {
        _ = parlor_name_this_thread(name)
    }

    static let epollIn = UInt32(EPOLLIN.rawValue)
    static let epollOut = UInt32(EPOLLOUT.rawValue)
    static let epollErr = UInt32(EPOLLERR.rawValue)
    static let epollHup = UInt32(EPOLLHUP.rawValue)
    static let epollCtlAdd = EPOLL_CTL_ADD
    static let epollCtlDel = EPOLL_CTL_DEL
    static let epollCtlMod = EPOLL_CTL_MOD
    static let epollCloexec = Int32(EPOLL_CLOEXEC)
    static let eventFDCloexec = Int32(EFD_CLOEXEC)
    static let eventFDNonblock = Int32(EFD_NONBLOCK)
    static let socketNonblock: Int32 = Int32(SOCK_NONBLOCK.rawValue)
    static let socketCloexec: Int32 = Int32(SOCK_CLOEXEC.rawValue)

    /// `struct epoll_event`'s size and the offset of its data field, from the C header.
    static let epollEventSize = Int(parlor_epoll_event_size())
    static let epollDataOffset = Int(parlor_epoll_data_offset())
}
