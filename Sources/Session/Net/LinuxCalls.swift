// Linux calls that Swift's Glibc module map leaves out (sys/epoll.h,
// sys/eventfd.h, accept4, gettid), looked up once with dlsym and called
// through correctly typed C function pointers.
//
// Why not a C shim target: the package layout forbids new targets in this
// change; a `.systemLibrary` module with `#include <sys/epoll.h>` would
// replace this file one for one.
@preconcurrency import Glibc

/// Function pointers and constants for epoll, eventfd, accept4 and gettid.
enum LinuxCalls {
    typealias EpollCreate1 = @convention(c) (Int32) -> Int32
    typealias EpollControl = @convention(c) (Int32, Int32, Int32, UnsafeMutableRawPointer?) -> Int32
    typealias EpollWait = @convention(c) (Int32, UnsafeMutableRawPointer?, Int32, Int32) -> Int32
    typealias EventFD = @convention(c) (UInt32, Int32) -> Int32
    typealias Accept4 = @convention(c) (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32) -> Int32
    typealias GetTID = @convention(c) () -> Int32

    /// The resolved functions; nil only if this C library lacks them, which
    /// `EventLoop.init` reports as an error instead of crashing.
    struct Table: @unchecked Sendable {
        // @unchecked: C function pointers are immutable and callable from any thread.
        let epollCreate1: EpollCreate1
        let epollControl: EpollControl
        let epollWait: EpollWait
        let eventFD: EventFD
        let accept4: Accept4
        let getTID: GetTID
    }

    static let table: Table? = {
        // RTLD_DEFAULT is the null handle on glibc: search the loaded libraries.
        func lookup<Function>(_ name: String, as type: Function.Type) -> Function? {
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
            return unsafeBitCast(symbol, to: type)
        }
        guard let epollCreate1 = lookup("epoll_create1", as: EpollCreate1.self),
              let epollControl = lookup("epoll_ctl", as: EpollControl.self),
              let epollWait = lookup("epoll_wait", as: EpollWait.self),
              let eventFD = lookup("eventfd", as: EventFD.self),
              let accept4 = lookup("accept4", as: Accept4.self),
              let getTID = lookup("gettid", as: GetTID.self)
        else { return nil }
        return Table(epollCreate1: epollCreate1, epollControl: epollControl, epollWait: epollWait,
                     eventFD: eventFD, accept4: accept4, getTID: getTID)
    }()

    // Kernel ABI constants (include/uapi/linux/eventpoll.h, eventfd.h).
    static let epollIn: UInt32 = 0x001
    static let epollOut: UInt32 = 0x004
    static let epollErr: UInt32 = 0x008
    static let epollHup: UInt32 = 0x010
    static let epollCtlAdd: Int32 = 1
    static let epollCtlDel: Int32 = 2
    static let epollCtlMod: Int32 = 3
    static let epollCloexec: Int32 = O_CLOEXEC
    static let eventFDCloexec: Int32 = O_CLOEXEC
    static let eventFDNonblock: Int32 = O_NONBLOCK
    static let socketNonblock: Int32 = Int32(SOCK_NONBLOCK.rawValue)
    static let socketCloexec: Int32 = Int32(SOCK_CLOEXEC.rawValue)

    /// `struct epoll_event` is packed on x86-64 (12 bytes, data at offset 4)
    /// and naturally aligned elsewhere (16 bytes, data at offset 8).
    #if arch(x86_64)
    static let epollEventSize = 12
    static let epollDataOffset = 4
    #else
    static let epollEventSize = 16
    static let epollDataOffset = 8
    #endif
}
