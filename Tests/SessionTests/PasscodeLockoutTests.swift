@preconcurrency import Glibc
import Synchronization
import Testing
@testable import Session

/// A TCP connection to 127.0.0.1:`port` from `source` (any 127.0.0.0/8
/// address: loopback has them all), so one process can be many guessers.
func connectFrom(_ source: String, to port: UInt16) throws -> TCPConnection {
    let local = try SocketAddress(ipAddress: source, port: 0)
    let remote = try SocketAddress(ipAddress: "127.0.0.1", port: port)
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw NetError.connectFailed(host: source, port: port, attempts: []) }
    guard local.withSockAddr({ bind(fd, $0, $1) }) == 0, remote.withSockAddr({ Glibc.connect(fd, $0, $1) }) == 0 else {
        close(fd)
        throw NetError.connectFailed(host: source, port: port, attempts: [])
    }
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    return try TCPConnection(connectedFD: fd, loop: try EventLoop.given(nil), options: .init())
}

/// Counts of what the guessers were told, with the times of the wrong answers.
final class GuessTally: Sendable {
    private let state = Mutex<(wrong: [ContinuousClock.Instant], busy: Int, other: Int)>(([], 0, 0))
    func record(_ reason: ReasonCode?) {
        state.withLock {
            switch reason {
            case .passcodeWrong?: $0.wrong.append(.now)
            case .busy?: $0.busy += 1
            default: $0.other += 1
            }
        }
    }
    var snapshot: (wrong: [ContinuousClock.Instant], busy: Int, other: Int) { state.withLock { $0 } }
}

/// Issue 17 item 19: wrong passcodes cost the guessers, not the real guest.
@Suite("Passcode guessing does not lock the guest out (loopback, 127.0.0.x)", .serialized)
struct PasscodeLockoutTests {
    static let code = "K7M-Q4P"

    /// One guesser: a fresh connection from `source` per guess, a made-up
    /// proof, until cancelled. A `busy` answer is instant, so it pauses
    /// 50 ms after one (a real guesser would not; the 2 cores here are shared).
    static func guess(from source: String, port: UInt16, tally: GuessTally) async {
        while !Task.isCancelled {
            guard let connection = try? connectFrom(source, to: port) else {
                try? await Task.sleep(for: .milliseconds(20)); continue
            }
            let peer = TCPProtocolPeer(connection: connection)
            peer.send(.hello(PasscodeLoopbackTests.hello("Eve")))
            guard case .challenge? = await peer.next(timeout: .seconds(12)) else { peer.close(); continue }
            peer.send(.hello(PasscodeLoopbackTests.hello("Eve", proof: (0..<48).map { _ in UInt8.random(in: 0...255) })))
            let answer = await peer.next(timeout: .seconds(12))
            peer.close()
            if case .reject(let reason, _)? = answer {
                tally.record(reason)
                if reason == .busy { try? await Task.sleep(for: .milliseconds(50)) }
            } else if answer != nil {
                tally.record(nil)
            }
        }
    }

    /// The right code from `source`, answered with WELCOME or REJECT; the time it took.
    static func rightProof(from source: String, port: UInt16) async throws -> (Message?, Duration) {
        let started = ContinuousClock.now
        let peer = TCPProtocolPeer(connection: try connectFrom(source, to: port))
        defer { peer.close() }
        let hello = PasscodeLoopbackTests.hello("Ben")
        peer.send(.hello(hello))
        guard case .challenge(let challenge)? = await peer.next(timeout: .seconds(12)) else { return (nil, ContinuousClock.now - started) }
        var proved = hello
        proved.passcodeProof = try PasscodeKey(code: code, matchID: challenge.matchID).proof(for: challenge)
        peer.send(.hello(proved))
        let answer = await peer.next(timeout: .seconds(12))
        return (answer, ContinuousClock.now - started)
    }

    /// A host with `code` serving clear connections on 127.0.0.1, and the task that serves them.
    static func guardedHost() throws -> (MatchHost, TCPListener, Task<Void, Never>) {
        let listener = try TCPListener.listen(port: 0, on: .specific(try SocketAddress(ipAddress: "127.0.0.1", port: 0)))
        var configuration = HostConfiguration(gameID: "connect4", hostName: "Ana", hostPlayerID: .random(), appVersion: "test")
        configuration.passcode = code
        let host = try MatchHost(configuration: configuration)
        return (host, listener, Task { await host.serve(listener, security: .clear) })
    }

    @Test("eight guessing addresses: the guest on its own address gets in within 7 s, one sharing a guesser's address is answered within 7 s, and guessing stays at 4 a second")
    func guessersDoNotLockTheGuestOut() async throws {
        let (host, listener, acceptor) = try Self.guardedHost()
        defer { acceptor.cancel(); listener.close() }
        let throttle = await host.configuration.passcodeThrottle
        let port = listener.port
        let tally = GuessTally()

        // 127.0.0.2 to .8: six guessers each, more than an address's share of 4
        // waiting proofs. 127.0.0.9: two guessers, on an address the real
        // guest's friend shares (a NAT).
        let guessers = Task {
            await withTaskGroup(of: Void.self) { group in
                for address in 2...9 {
                    for _ in 0..<(address == 9 ? 2 : 6) {
                        group.addTask { await Self.guess(from: "127.0.0.\(address)", port: port, tally: tally) }
                    }
                }
            }
        }
        let attackStarted = ContinuousClock.now
        try await Task.sleep(for: .seconds(8))  // every address at its longest delay, the queue full
        let waitingAtJoin = await host.waitingProofCount
        #expect(waitingAtJoin >= throttle.maximumWaiting / 2, "the guessers hardly queued (\(waitingAtJoin) waiting)")

        // The real guest, on its own address, with the right code.
        let (welcome, took) = try await Self.rightProof(from: "127.0.0.100", port: port)
        guard case .welcome? = welcome else { Issue.record("the guest got \(String(describing: welcome)) after \(took)"); guessers.cancel(); return }
        #expect(await host.hasGuest)
        #expect(took < throttle.longestWait + .seconds(1), "the guest got in after \(took)")

        // Someone else with the right code behind the guessing NAT: checked
        // (the seat is taken now, so the answer is matchFull), not refused busy.
        let (shared, sharedTook) = try await Self.rightProof(from: "127.0.0.9", port: port)
        guard case .reject(.matchFull, _)? = shared else { Issue.record("the shared address got \(String(describing: shared))"); guessers.cancel(); return }
        #expect(sharedTook < throttle.maximumDelay + .seconds(1), "the shared address was answered after \(sharedTook)")

        try await Task.sleep(for: .seconds(4))
        guessers.cancel()
        await guessers.value
        let seen = tally.snapshot
        // Every check has a turn of its own, 250 ms after the one before, none
        // before the attack began: so by the last answer read, at most
        // elapsed / 250 ms + 1 proofs were checked (the guessers' and the two
        // right ones). Answers read late, on a busy machine, only make the
        // elapsed time longer.
        let elapsed = (seen.wrong.last ?? attackStarted) - attackStarted
        let rate = Double(seen.wrong.count) / max(elapsed / .seconds(1), 0.001)
        let warm = seen.wrong.filter { $0 - attackStarted >= .seconds(6) }
        let warmSpan = (warm.last ?? attackStarted) - (warm.first ?? attackStarted)
        let warmRate = Double(max(warm.count - 1, 0)) / max(warmSpan / .seconds(1), 0.001)
        print("passcode lock-out: \(waitingAtJoin) proofs waiting when the guest came; guest in after \(took), shared address answered after \(sharedTook); guessers from 8 addresses got \(seen.wrong.count) wrong answers in \(elapsed) (\(String(format: "%.2f", rate)) a second; \(String(format: "%.2f", warmRate)) a second as read from 6 s in), \(seen.busy) busy, \(seen.other) other")
        #expect(seen.wrong.count >= 20, "the guessers were hardly answered")
        #expect(Double(seen.wrong.count + 2) <= elapsed / throttle.judgingInterval + 1, "\(seen.wrong.count) wrong answers in \(elapsed)")
        await host.shutdown()
    }
}
