@preconcurrency import Glibc
import Foundation
import Synchronization

/// The floor `parlor bench turns` compares a turn with: what the same bytes
/// cost with nothing of parlor in the way. Two plain threads (no event loop,
/// no tasks) bounce `request` bytes out and `reply` bytes back over a
/// blocking TCP socket on 127.0.0.1; with `durableIn` set, the answering
/// side first appends the request's bytes to a file in that directory and
/// `fdatasync`s it, as a host must before it confirms a turn.
public enum BenchFloor {
    /// Why the floor could not be measured.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// One duration per timed round trip, after `warmup` untimed ones; the
    /// two sides run on threads of their own, off the cooperative pool.
    /// Throws `Failure` when a socket or the journal cannot be set up.
    /// Cancelling the calling task stops it within a round trip (CancellationError).
    public static func measure(request: Int, reply: Int, count: Int, durableIn directory: String?, warmup: Int = 20)
        async throws -> [Duration] {
        try await measureWithCPU(request: request, reply: reply, count: count, durableIn: directory, warmup: warmup).times
    }

    /// `measure`, and the CPU time the answering thread spent on each timed
    /// round on average (reading the request, the durable append when there
    /// is one, writing the reply): what a process that answers a turn this
    /// way must spend, at the least, the floor of a host's CPU per turn.
    /// The kernel's work on that thread's behalf counts; work it hands to
    /// its own threads (the disk's completion) does not, as for any process.
    public static func measureWithCPU(request: Int, reply: Int, count: Int, durableIn directory: String?, warmup: Int = 20)
        async throws -> (times: [Duration], answerCPU: Duration) {
        try await onThread { stop in
            try run(request: request, reply: reply, count: count, durableIn: directory, warmup: warmup, stop: stop)
        }
    }

    /// Runs on a thread of its own (the client), with the answering side on another.
    private static func run(request: Int, reply: Int, count: Int, durableIn directory: String?, warmup: Int,
                            stop: StopFlag) throws -> (times: [Duration], answerCPU: Duration) {
        let (listener, address) = try listenLoopback()
        defer { close(listener) }
        var journal: Int32 = -1
        var journalPath = ""
        if let directory {
            journalPath = directory + "/.floor-\(getpid()).journal"
            journal = open(journalPath, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o600)
            guard journal >= 0 else { throw Failure(description: "open \(journalPath): \(String(cString: strerror(errno)))") }
        }
        defer { if journal >= 0 { close(journal); unlink(journalPath) } }
        let total = warmup + count
        let answering = journal
        // The answering thread's CPU over the timed rounds, told once it has answered the last.
        let answerCPU = Mutex<Duration?>(nil)
        let answered = DispatchSemaphore(value: 0)
        let server = Thread {
            defer { answered.signal() }
            let peer = accept(listener, nil, nil)
            guard peer >= 0 else { return }
            defer { close(peer) }
            noDelay(peer)
            var inbound = [UInt8](repeating: 0, count: request)
            let outbound = [UInt8](repeating: 0x43, count: reply)
            var started = Duration.zero
            for round in 0..<total {
                if round == warmup { started = threadCPUTime() }
                guard readFully(peer, &inbound) else { return }
                if answering >= 0 {
                    guard writeFully(answering, inbound) else { return }
                    _ = fdatasync(answering)
                }
                guard writeFully(peer, outbound) else { return }
            }
            let spent = threadCPUTime() - started
            answerCPU.withLock { $0 = spent }
        }
        server.start()
        let client = try connectLoopback(address)
        defer { close(client) }
        let outbound = [UInt8](repeating: 0x54, count: request)
        var inbound = [UInt8](repeating: 0, count: reply)
        var times: [Duration] = []
        times.reserveCapacity(count)
        for round in 0..<total {
            if stop.isSet { throw CancellationError() }
            let started = ContinuousClock.now
            guard writeFully(client, outbound), readFully(client, &inbound) else {
                throw Failure(description: "the plain ping-pong stopped after \(round) rounds")
            }
            if round >= warmup { times.append(ContinuousClock.now - started) }
        }
        // The last reply is read: the answering thread is only taking its CPU time and ending.
        answered.wait()
        let cpu = answerCPU.withLock { $0 } ?? .zero
        return (times, count > 0 ? cpu / count : .zero)
    }

    /// The calling thread's CPU time so far (user and system).
    private static func threadCPUTime() -> Duration {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return .seconds(spec.tv_sec) + .nanoseconds(spec.tv_nsec)
    }

    /// Runs `body` on a thread of its own, off the cooperative pool; cancelling
    /// the calling task sets the flag `body` is given, which it checks as it goes.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable (StopFlag) throws -> T) async throws -> T {
        let stop = StopFlag()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                Thread {
                    do { continuation.resume(returning: try body(stop)) } catch { continuation.resume(throwing: error) }
                }.start()
            }
        } onCancel: {
            stop.set()
        }
    }

    /// A TCP socket listening on 127.0.0.1 (a port of the system's choice), and its address.
    static func listenLoopback() throws -> (Int32, sockaddr_in) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw -> Bool in
                bind(listener, raw, length) == 0 && listen(listener, 1) == 0 && getsockname(listener, raw, &length) == 0
            }
        }
        guard bound else {
            let why = String(cString: strerror(errno))
            close(listener)
            throw Failure(description: "bind 127.0.0.1: \(why)")
        }
        return (listener, address)
    }

    /// A blocking TCP socket connected to `address`, with Nagle off.
    static func connectLoopback(_ address: sockaddr_in) throws -> Int32 {
        var address = address
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard client >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            let why = String(cString: strerror(errno))
            close(client)
            throw Failure(description: "connect 127.0.0.1: \(why)")
        }
        noDelay(client)
        return client
    }

    static func noDelay(_ fd: Int32) {
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Reads exactly `buffer.count` bytes from a blocking socket; false when it ends first.
    static func readFully(_ fd: Int32, _ buffer: inout [UInt8]) -> Bool {
        var done = 0
        while done < buffer.count {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, $0.count - done) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            done += count
        }
        return true
    }

    static func writeFully(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            done += count
        }
        return true
    }
}

/// Set once when the task that started a bench's thread is cancelled.
final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .relaxed) }
    func set() { flag.store(true, ordering: .relaxed) }
}
