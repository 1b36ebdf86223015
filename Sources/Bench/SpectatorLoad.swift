@preconcurrency import Glibc
import Foundation
import Match
import Session
import Synchronization

/// The spectators of `parlor bench turns --spectators N`: a process of their
/// own, as real spectators are (on other machines), so that what the bench
/// times is the host's cost of them and not their own reading.
///
/// The bench starts this executable again with `PARLOR_BENCH_SPECTATOR_LOAD=N`
/// (`parlor bench turns` then runs `SpectatorLoad.serve` instead of the bench)
/// and writes a port to its standard input for each watched block; the child
/// opens N loopback connections to it, says WATCH on each, then reads every
/// byte and decodes every frame (its message, and the match blob of each
/// TURN, QUIT and STATE, as `parlor watch` does: a reader too slow for the
/// host would be dropped, and the bench would show it) and sends HEARTBEAT
/// every 2 s, all on one thread with `poll`. Each time its last spectator is
/// gone it writes a line `idle FRAMES BYTES UNDECODED` (totals so far), which
/// `settle()` waits for. It runs at nice 19: it stands for other machines and
/// should take the host's cores only when they are idle. When its standard
/// input ends it exits.
public final class SpectatorLoad: Sendable {
    /// The environment variable that makes `parlor bench turns` the load.
    public static let variable = "PARLOR_BENCH_SPECTATOR_LOAD"

    /// Spectators per match.
    public let count: Int
    private let process: Process
    private let input: FileHandle
    private let output: Pipe

    /// Starts the child with `count` spectators per match.
    public init(count: Int) throws {
        self.count = count
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["bench", "turns"]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.variable] = String(count)
        process.environment = environment
        let inputPipe = Pipe()
        output = Pipe()
        process.standardInput = inputPipe
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        input = inputPipe.fileHandleForWriting
    }

    /// Has `count` spectators watch the host on 127.0.0.1:`port`.
    public func watch(port: UInt16) {
        input.write(Data("\(port)\n".utf8))
    }

    /// What the spectators got in all, as the child last said.
    public struct Received: Sendable { public var frames = 0, bytes = 0, undecoded = 0 }
    private let last = Mutex(Received())

    /// Waits (at most 10 s) until the child says its spectators have all gone.
    public func settle() throws {
        let fd = output.fileHandleForReading.fileDescriptor
        var line: [UInt8] = [], byte: UInt8 = 0
        var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while poll(&ready, 1, 10_000) > 0, read(fd, &byte, 1) == 1 {
            guard byte == 10 else { line.append(byte); continue }
            let fields = String(decoding: line, as: UTF8.self).split(separator: " ").compactMap { Int($0) }
            guard fields.count == 3 else { break }
            last.withLock { $0 = Received(frames: fields[0], bytes: fields[1], undecoded: fields[2]) }
            return
        }
        throw Failure.notLeaving
    }

    /// Ends the child; returns what its spectators received in all.
    public func finish() -> Received {
        try? input.close()
        process.waitUntilExit()
        return last.withLock { $0 }
    }

    /// The spectators did not all get in.
    public enum Failure: Error, CustomStringConvertible {
        case notWatching(Int, of: Int)
        case notLeaving
        public var description: String {
            switch self {
            case .notWatching(let watching, let of): "only \(watching) of \(of) bench spectators were watching after 10 s"
            case .notLeaving: "the bench spectators had not all gone 10 s after their block"
            }
        }
    }

    // MARK: The child

    /// The child's loop (see the type's comment); returns when standard input ends.
    public static func serve(count: Int, appVersion: String) {
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
        var links: [(fd: Int32, decoder: FrameDecoder)] = []
        var fds = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0)]
        var total = Received()
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var lastBeat = ContinuousClock.now
        while true {
            let ready = poll(&fds, nfds_t(fds.count), 500)
            if ready < 0, errno != EINTR { break }
            var changed = false  // links came or went: the poll set is made again
            for index in links.indices where fds[index + 1].revents != 0 {
                let got = buffer.withUnsafeMutableBytes { read(links[index].fd, $0.baseAddress!, $0.count) }
                guard got > 0 else {
                    if got == 0 || errno != EAGAIN { close(links[index].fd); links[index].fd = -1; changed = true }
                    continue
                }
                total.bytes += got
                links[index].decoder.append(buffer[0..<got])
                while let frame = try? links[index].decoder.next() {
                    total.frames += 1
                    switch try? Message.decode(frame) {
                    case .turn(_, let blob)?, .quit(_, let blob)?, .state(let blob)?:
                        if (try? MatchBlob.decode(blob)) == nil { total.undecoded += 1 }
                    case nil: total.undecoded += 1
                    default: break
                    }
                }
            }
            if changed {
                links.removeAll { $0.fd < 0 }
                if links.isEmpty { print(total.frames, total.bytes, total.undecoded); fflush(stdout) }
            }
            if fds[0].revents != 0 {
                let got = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress!, $0.count) }
                if got <= 0 { break }
                pending += buffer[0..<got]
                while let newline = pending.firstIndex(of: 10) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    if let port = UInt16(line) {
                        changed = true
                        links += (0..<count).compactMap { connectAndWatch(port: port, number: $0, appVersion: appVersion) }.map { ($0, FrameDecoder()) }
                    }
                }
            }
            // The poll set changes only when links come or go.
            if changed { fds = [fds[0]] + links.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) } }
            if ContinuousClock.now - lastBeat >= .seconds(2) {
                lastBeat = .now
                let beat = Message.heartbeat(senderTime: UInt64(clamping: wallClockMilliseconds())).encoded
                for link in links { _ = beat.withUnsafeBytes { send(link.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } }
            }
        }
        for link in links { close(link.fd) }
    }

    /// One spectator: a blocking connect, TCP_NODELAY, WATCH, and its WATCHING read before the next
    /// (a host lets 32 handshakes wait at once and answers more with REJECT busy: such a one tries again).
    private static func connectAndWatch(port: UInt16, number: Int, appVersion: String) -> Int32? {
        for _ in 0..<20 {
            if let fd = attempt(port: port, number: number, appVersion: appVersion) { return fd }
            usleep(50_000)
        }
        return nil
    }

    private static func attempt(port: UInt16, number: Int, appVersion: String) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var wait = timeval(tv_sec: 5, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        var hello = Hello(appVersion: appVersion, playerID: .random(), playerName: "Spectator \(number + 1)")
        hello.watching = true
        let watch = Message.watch(hello).encoded
        guard connected, watch.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == watch.count else {
            close(fd)
            return nil
        }
        // The answer's frame header: magic, version, type, payload length; then the payload.
        var header = [UInt8](repeating: 0, count: FrameFormat.headerSize)
        guard BenchFloor.readFully(fd, &header), header[3] == MessageType.watching.rawValue else {
            close(fd)
            return nil
        }
        let length = header[4..<8].reduce(0) { $0 << 8 | Int($1) }
        var payload = [UInt8](repeating: 0, count: length)
        guard BenchFloor.readFully(fd, &payload) else {
            close(fd)
            return nil
        }
        return fd
    }
}
