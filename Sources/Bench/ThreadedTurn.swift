@preconcurrency import Glibc
import Foundation
import Games
import Match
import Session
import Store
import Synchronization

/// A breakdown of `parlor bench turns`, not a floor: the same turn with
/// parlor's own work and none of its threading. One plain blocking thread per
/// side, no event loop, no tasks, over a loopback TCP socket: the guest
/// encodes its TURN (the whole match blob, as `RemoteHost` does); the host
/// reads the frame, decodes the message, validates it (`HostTurnValidator`),
/// saves (its `MatchRecorder`, before the CONFIRM leaves) and confirms; the
/// host's own move is saved, pushed and checked by the guest
/// (`GuestPushValidator`), which saves what it knows before it sends its next
/// turn. The difference from the full turn is what the event loop and the
/// task and actor hand-offs cost; it says what a threaded session would give.
public enum BenchThreadedTurn {
    /// Why the breakdown could not be measured.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// One duration per guest turn (its TURN sent to its CONFIRM read, the
    /// wait for its own saves included), after `warmup` untimed ones, in
    /// connect4 matches between seeded random moves; with `directory`, both
    /// sides record into a store there. Throws `Failure` when the sockets
    /// cannot be set up or a side stops.
    /// Cancelling the calling task stops it within a turn (CancellationError).
    public static func measure(count: Int, directory: String?, seed: UInt64, warmup: Int = 20) async throws -> [Duration] {
        try await BenchFloor.onThread { stop in
            try run(count: count, store: directory.map { MatchStore(directory: $0) }, seed: seed, warmup: warmup, stop: stop)
        }
    }

    /// Runs on a thread of its own (the guest), the host's side on another.
    private static func run(count: Int, store: MatchStore?, seed: UInt64, warmup: Int, stop: StopFlag) throws -> [Duration] {
        let (listener, address) = try BenchFloor.listenLoopback()
        defer { close(listener) }
        let hostStopped = Mutex<String?>(nil)
        let hostDone = DispatchSemaphore(value: 0)
        let host = Thread {
            defer { hostDone.signal() }
            let peer = accept(listener, nil, nil)
            guard peer >= 0 else { return hostStopped.withLock { $0 = "accept: \(String(cString: strerror(errno)))" } }
            defer { close(peer) }
            BenchFloor.noDelay(peer)
            let why = serveHost(peer, store: store, seed: seed)
            hostStopped.withLock { $0 = why }
        }
        host.start()
        let guest: Int32
        do { guest = try BenchFloor.connectLoopback(address) } catch {
            shutdown(listener, Int32(SHUT_RDWR))  // wakes the accept
            hostDone.wait()
            throw error
        }
        defer { close(guest) }
        let times: [Duration]
        do {
            times = try playGuest(guest, store: store, seed: seed, turns: warmup + count, stop: stop)
        } catch {
            shutdown(guest, Int32(SHUT_RDWR))
            hostDone.wait()
            // The host's reason, when it stopped first, says more than the closed socket.
            throw hostStopped.withLock { $0 }.map { Failure(description: "the host's side stopped: \($0)") } ?? error
        }
        // The host's last save is done before the bench removes its store.
        shutdown(guest, Int32(SHUT_RDWR))
        hostDone.wait()
        return Array(times.dropFirst(warmup))
    }

    /// Connect4 between the host (seat 0, first to move) and the guest; the
    /// same seed gives both sides the same match, and the next when one ends.
    private static func newMatch(_ generator: inout SplitMix64) -> MatchState {
        let seats = [Seat(playerID: PlayerID.random(using: &generator), name: "Host"),
                     Seat(playerID: PlayerID.random(using: &generator), name: "Guest")]
        return MatchState(matchID: MatchID.random(using: &generator), game: Connect4(seats: 2), seats: seats)
    }

    private static func randomMove(in state: MatchState, by seat: SeatIndex, _ generator: inout SplitMix64) -> MatchState? {
        let legal = state.game.legalMoves
        guard !legal.isEmpty else { return nil }
        return try? state.applying(.move(legal[Int(generator.next() % UInt64(legal.count))], by: seat), now: 0)
    }

    private static func recorder(_ store: MatchStore?, _ state: MatchState, role: StoredMatch.Role, seat: Int) -> MatchRecorder? {
        guard let store else { return nil }
        let recorder = MatchRecorder(store: store, record: StoredMatch(state: state, role: role, localSeat: seat, lastActivity: 0))
        recorder.saveNow(state)
        return recorder
    }

    /// The host's side until the guest goes; why it stopped.
    private static func serveHost(_ peer: Int32, store: MatchStore?, seed: UInt64) -> String {
        var matches = SplitMix64(seed: seed), moves = SplitMix64(seed: seed ^ 0x5A5A)
        var wire = Wire(peer)
        while true {
            var state = newMatch(&matches)
            let recorder = recorder(store, state, role: .host, seat: 0)
            var hashes: [UInt32: UInt64] = [:]
            while !state.isEnded {
                let next: MatchState
                let answer: Message
                if state.activeSeat == 0 {
                    guard let move = randomMove(in: state, by: 0, &moves) else { return "no move for the host" }
                    next = move
                    answer = .turn(sequence: next.sequence, blob: MatchBlob.encode(next))
                } else {
                    let message: Message
                    do { message = try wire.read() } catch { return "\(error)" }
                    guard case .turn(let sequence, let blob) = message else { return "the guest sent \(message)" }
                    let checked = HostTurnValidator.validate(.turn, sequence: sequence, blob: blob, committed: state, guestSeat: 1,
                                                             committedHashes: hashes)
                    switch checked {
                    case .failure(let rejection): return "the host rejected the guest's turn: \(rejection.sentence)"
                    case .success(let (change, judged)):
                        guard let judgedState = judged?.state ?? (try? state.applying(change, now: 0)) else {
                            return "the guest's turn breaks the rules"
                        }
                        next = judgedState
                    }
                    answer = .confirm(sequence: sequence, stateHash: next.stateHash, deadline: 0)
                }
                do { try recorder?.saveBeforeRevealing(next) } catch { return "\(error)" }
                state = next
                hashes[state.sequence] = state.stateHash
                guard wire.write(answer) else { return "the guest went" }
            }
        }
    }

    /// The guest's side for `turns` timed turns.
    private static func playGuest(_ fd: Int32, store: MatchStore?, seed: UInt64, turns: Int, stop: StopFlag) throws -> [Duration] {
        var matches = SplitMix64(seed: seed), moves = SplitMix64(seed: seed ^ 0xA5A5)
        var wire = Wire(fd)
        var times: [Duration] = []
        times.reserveCapacity(turns)
        while times.count < turns {
            var state = newMatch(&matches)
            let recorder = recorder(store, state, role: .guest, seat: 1)
            var ownSave: PendingSave?
            while !state.isEnded, times.count < turns {
                if state.activeSeat == 0 {
                    guard case .turn(let sequence, let blob) = try wire.read() else { throw Failure(description: "the host sent no turn") }
                    switch GuestPushValidator.validate(.turn, sequence: sequence, blob: blob, known: state, guestSeat: 1) {
                    case .failure(let desync): throw Failure(description: desync.description)
                    case .success(let pushed): state = pushed.received
                    }
                    recorder?.saveSoon(state)
                    continue
                }
                if stop.isSet { throw CancellationError() }
                guard let next = randomMove(in: state, by: 1, &moves) else { throw Failure(description: "no move for the guest") }
                let started = ContinuousClock.now
                // The save of our previous change is on disk before we reveal the next (the guest's
                // SaveBarrier); the host's moves since need not be.
                if let failure = ownSave?.wait() { throw Failure(description: failure.description) }
                guard wire.write(.turn(sequence: next.sequence, blob: MatchBlob.encode(next))) else {
                    throw Failure(description: "the host went")
                }
                guard case .confirm(next.sequence, next.stateHash, _) = try wire.read() else {
                    throw Failure(description: "the host did not confirm turn \(next.sequence)")
                }
                times.append(ContinuousClock.now - started)
                state = next
                if let recorder {
                    let save = PendingSave()
                    recorder.saveBeforeRevealing(state) { save.finish($0) }
                    ownSave = save
                }
            }
        }
        return times
    }

    /// One save asked for, waited for on a plain thread.
    private final class PendingSave: Sendable {
        private let done = DispatchSemaphore(value: 0)
        private let failure = Mutex<SaveFailure?>(nil)
        func finish(_ why: SaveFailure?) {
            failure.withLock { $0 = why }
            done.signal()
        }
        /// Waits until it is on disk (once); why it is not, or nil.
        func wait() -> SaveFailure? {
            done.wait()
            return failure.withLock { $0 }
        }
    }

    /// Frames in and out of a blocking socket.
    private struct Wire {
        let fd: Int32
        var decoder = FrameDecoder()
        var buffer = [UInt8](repeating: 0, count: 4096)
        init(_ fd: Int32) { self.fd = fd }

        mutating func read() throws -> Message {
            while true {
                if let frame = try decoder.next() { return try Message.decode(frame) }
                let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { throw Failure(description: "the connection closed") }
                decoder.append(buffer[0..<count])
            }
        }

        func write(_ message: Message) -> Bool { BenchFloor.writeFully(fd, message.encoded) }
    }
}
