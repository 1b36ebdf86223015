// One thread, one epoll set: every socket of the process is served here, so a
// thousand connections cost a thousand descriptors, not a thousand threads.
@preconcurrency import Glibc
import Foundation

/// Something registered with an `EventLoop` that reacts to readiness.
///
/// `handle(events:)` is called on the loop thread only, with the raw epoll
/// event bits; it must not block.
protocol EventLoopHandler: AnyObject, Sendable {
    func handle(events: UInt32)
}

/// Names for the epoll bits used in this module.
enum Readiness {
    static let readable = LinuxCalls.epollIn
    static let writable = LinuxCalls.epollOut
    static let error = LinuxCalls.epollErr
    static let hangUp = LinuxCalls.epollHup
}

/// A single dedicated thread running `epoll_wait` over non-blocking sockets,
/// plus timers and tasks submitted from other threads.
///
/// Level-triggered by design: a handler reads at most one bounded chunk per
/// wake-up and the kernel reports the socket again if more is waiting, so one
/// busy peer cannot starve the others and no handler needs to drain to
/// `EAGAIN`. The cost is that a handler must remove interest it cannot act on
/// (a paused reader, an empty write queue) or the loop would spin; handlers
/// do that, and deregister entirely when they want nothing, because epoll
/// reports errors and hang-ups even for an empty interest set.
///
/// Registration, timers and `execute` are thread-safe. `epoll_ctl` itself is
/// thread-safe in the kernel; an eventfd wakes the thread when a task or an
/// earlier timer arrives.
///
/// `@unchecked Sendable`: the mutable tables are guarded by `lock`; the epoll
/// and eventfd descriptors are immutable after `init`.
public final class EventLoop: @unchecked Sendable {
    /// Identifies one registration; never reused, so a late event for a
    /// closed (and possibly reused) descriptor is recognised and dropped.
    typealias RegistrationID = UInt64

    /// Identifies a scheduled timer, for `cancelTimer`.
    public struct TimerID: Sendable, Hashable {
        fileprivate let value: UInt64
    }

    private let calls: LinuxCalls.Table
    private let epollFD: Int32
    private let wakeFD: Int32
    private let lock = NSLock()
    private var handlers: [RegistrationID: EventLoopHandler] = [:]
    private var nextID: UInt64 = 1
    private var tasks: [@Sendable () -> Void] = []
    private var timers: [UInt64: (deadline: UInt64, task: @Sendable () -> Void)] = [:]
    /// Earliest deadline first; cancelled entries are skipped when popped.
    private var timerHeap = MinHeap<LoopTimer>()
    private var stopping = false
    private var threadID: Int32 = 0
    private var stopped = false
    private let stoppedCondition = NSCondition()

    /// Scratch space for reads: only the loop thread reads, so one buffer
    /// serves every connection and a 300-byte message costs a 300-byte array.
    let readBuffer: UnsafeMutableRawBufferPointer
    /// Size of `readBuffer`, the largest chunk read per readiness.
    public static let maximumReadChunk = 64 * 1024

    /// Creates the epoll set and the wake-up eventfd and starts the thread.
    ///
    /// Throws `NetError.systemCall` when the kernel refuses either descriptor.
    public init(name: String = "parlor-net") throws(NetError) {
        guard let calls = LinuxCalls.table else {
            throw NetError.systemCall(SystemCallError(call: "dlsym(epoll_create1)", errno: ENOSYS))
        }
        self.calls = calls
        do {
            epollFD = try syscall("epoll_create1") { calls.epollCreate1(LinuxCalls.epollCloexec) }
        } catch { throw NetError.systemCall(error) }
        do {
            wakeFD = try syscall("eventfd") { calls.eventFD(0, LinuxCalls.eventFDCloexec | LinuxCalls.eventFDNonblock) }
        } catch {
            closeDescriptor(epollFD)
            throw NetError.systemCall(error)
        }
        readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.maximumReadChunk, alignment: 16)
        // Registration 0 is the wake-up eventfd.
        let code = Self.control(calls, epollFD, LinuxCalls.epollCtlAdd, fd: wakeFD, interest: Readiness.readable, id: 0)
        guard code == 0 else {
            closeDescriptor(wakeFD)
            closeDescriptor(epollFD)
            readBuffer.deallocate()
            throw NetError.systemCall(SystemCallError(call: "epoll_ctl(ADD eventfd)", errno: code))
        }
        let thread = Thread { [self] in
            LinuxCalls.nameThisThread(name)
            run()
        }
        thread.name = name
        thread.start()
    }

    deinit {
        // Only reached after `shutdown()` (the running thread holds `self`).
        closeDescriptor(wakeFD)
        closeDescriptor(epollFD)
        readBuffer.deallocate()
    }

    private static let sharedLock = NSLock()
    nonisolated(unsafe) private static var sharedLoop: EventLoop?

    /// The process-wide loop, started on first use and never stopped.
    ///
    /// Throws only if the kernel refuses to create the epoll set.
    public static func shared() throws(NetError) -> EventLoop {
        sharedLock.lock()
        defer { sharedLock.unlock() }
        if let sharedLoop { return sharedLoop }
        let loop = try EventLoop(name: "parlor-net")
        sharedLoop = loop
        return loop
    }

    /// `loop` itself, or the shared loop when nil.
    static func given(_ loop: EventLoop?) throws(NetError) -> EventLoop {
        if let loop { return loop }
        return try shared()
    }

    /// True when called on this loop's thread.
    public var inEventLoop: Bool {
        lock.lock()
        defer { lock.unlock() }
        return threadID == calls.getTID()
    }

    // MARK: Registration

    /// Adds `fd` to the epoll set with `interest` (epoll bits) and returns the
    /// registration that `modify` and `deregister` take.
    func register(fd: Int32, interest: UInt32, handler: EventLoopHandler) throws(SystemCallError) -> RegistrationID {
        lock.lock()
        let id = nextID
        nextID += 1
        // The handler is in the table before the kernel can report anything.
        handlers[id] = handler
        lock.unlock()
        if interest != 0 {
            do {
                try control(LinuxCalls.epollCtlAdd, fd: fd, interest: interest, id: id)
            } catch {
                lock.lock()
                handlers[id] = nil
                lock.unlock()
                throw error
            }
        }
        return id
    }

    /// Performs one `epoll_ctl`: `LinuxCalls.epollCtlAdd`, `…Mod` or `…Del`.
    func control(_ operation: Int32, fd: Int32, interest: UInt32, id: RegistrationID) throws(SystemCallError) {
        let code = Self.control(calls, epollFD, operation, fd: fd, interest: interest, id: id)
        guard code == 0 else {
            let name = operation == LinuxCalls.epollCtlAdd ? "epoll_ctl(ADD)"
                : operation == LinuxCalls.epollCtlMod ? "epoll_ctl(MOD)" : "epoll_ctl(DEL)"
            throw SystemCallError(call: name, errno: code)
        }
    }

    /// `epoll_ctl` with a hand-built `struct epoll_event`; returns 0 or errno.
    private static func control(_ calls: LinuxCalls.Table, _ epollFD: Int32, _ operation: Int32,
                                fd: Int32, interest: UInt32, id: UInt64) -> Int32 {
        var event = [UInt8](repeating: 0, count: 16)
        return event.withUnsafeMutableBytes { raw -> Int32 in
            raw.storeBytes(of: interest, toByteOffset: 0, as: UInt32.self)
            raw.storeBytes(of: id, toByteOffset: LinuxCalls.epollDataOffset, as: UInt64.self)
            while true {
                if calls.epollControl(epollFD, operation, fd, raw.baseAddress) == 0 { return 0 }
                if errno != EINTR { return errno }
            }
        }
    }

    /// Removes the registration; the caller closes `fd` afterwards. Events
    /// already fetched for it are dropped by the loop.
    func deregister(fd: Int32, id: RegistrationID, inEpoll: Bool) {
        lock.lock()
        handlers[id] = nil
        lock.unlock()
        if inEpoll { try? control(LinuxCalls.epollCtlDel, fd: fd, interest: 0, id: id) }
    }

    // MARK: Tasks and timers

    /// Runs `task` on the loop thread soon. Safe from any thread.
    public func execute(_ task: @escaping @Sendable () -> Void) {
        lock.lock()
        tasks.append(task)
        lock.unlock()
        wake()
    }

    /// Runs `task` on the loop thread after `delay`. Safe from any thread.
    @discardableResult
    public func schedule(after delay: Duration, _ task: @escaping @Sendable () -> Void) -> TimerID {
        let deadline = monotonicNanoseconds() &+ delay.clampedNanoseconds
        lock.lock()
        let id = nextID
        nextID += 1
        timers[id] = (deadline, task)
        let isEarliest = timerHeap.peek().map { deadline < $0.deadline } ?? true
        timerHeap.push(LoopTimer(deadline: deadline, id: id))
        lock.unlock()
        if isEarliest { wake() }
        return TimerID(value: id)
    }

    /// Cancels a timer; harmless if it already ran.
    public func cancelTimer(_ id: TimerID) {
        lock.lock()
        timers[id.value] = nil
        lock.unlock()
    }

    /// Stops the thread after its current iteration and waits for it to end.
    /// Registered sockets are left as they are; close them first.
    /// Must not be called on the loop thread.
    public func shutdown() {
        lock.lock()
        stopping = true
        lock.unlock()
        wake()
        stoppedCondition.lock()
        while !stopped { stoppedCondition.wait() }
        stoppedCondition.unlock()
    }

    /// Number of live registrations (sockets), for tests and diagnostics.
    public var registrationCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return handlers.count
    }

    private func wake() {
        var one: UInt64 = 1
        // EAGAIN means the counter is already non-zero: the loop will wake anyway.
        _ = write(wakeFD, &one, 8)
    }

    // MARK: The thread

    private func run() {
        lock.lock()
        threadID = calls.getTID()
        lock.unlock()
        let capacity = 256
        let events = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity * LinuxCalls.epollEventSize, alignment: 16)
        defer { events.deallocate() }
        while true {
            lock.lock()
            if stopping { lock.unlock(); break }
            let timeout = timeoutMilliseconds()
            lock.unlock()
            let count = calls.epollWait(epollFD, events.baseAddress, Int32(capacity), timeout)
            if count < 0 {
                if errno == EINTR { continue }
                // EBADF/EINVAL cannot happen with our own descriptor; back off
                // rather than spin if the kernel says otherwise.
                usleep(10_000)
                continue
            }
            for index in 0..<Int(count) {
                let offset = index * LinuxCalls.epollEventSize
                let bits = events.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
                let id = events.loadUnaligned(fromByteOffset: offset + LinuxCalls.epollDataOffset, as: UInt64.self)
                if id == 0 {
                    var counter: UInt64 = 0
                    _ = read(wakeFD, &counter, 8)
                    continue
                }
                lock.lock()
                let handler = handlers[id]
                lock.unlock()
                handler?.handle(events: bits)
            }
            runTasks()
            runDueTimers()
        }
        stoppedCondition.lock()
        stopped = true
        stoppedCondition.broadcast()
        stoppedCondition.unlock()
    }

    /// Milliseconds until the earliest timer (rounded up), -1 for none.
    /// Called with `lock` held.
    private func timeoutMilliseconds() -> Int32 {
        if !tasks.isEmpty { return 0 }
        while let top = timerHeap.peek(), timers[top.id] == nil { _ = timerHeap.pop() }
        guard let top = timerHeap.peek() else { return -1 }
        let now = monotonicNanoseconds()
        if top.deadline <= now { return 0 }
        let milliseconds = (top.deadline - now + 999_999) / 1_000_000
        return Int32(min(milliseconds, 60_000))
    }

    private func runTasks() {
        lock.lock()
        let batch = tasks
        tasks.removeAll(keepingCapacity: true)
        lock.unlock()
        for task in batch { task() }
    }

    private func runDueTimers() {
        let now = monotonicNanoseconds()
        var due: [@Sendable () -> Void] = []
        lock.lock()
        while let top = timerHeap.peek(), top.deadline <= now {
            _ = timerHeap.pop()
            if let timer = timers.removeValue(forKey: top.id) { due.append(timer.task) }
        }
        lock.unlock()
        for task in due { task() }
    }
}

/// One timer of the loop, in its heap: earliest deadline first.
struct LoopTimer: Comparable {
    var deadline: UInt64
    var id: UInt64
    static func < (a: LoopTimer, b: LoopTimer) -> Bool { a.deadline < b.deadline }
}
