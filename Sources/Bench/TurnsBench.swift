import Foundation
import Bots
import Games
import Match
import Session
import Store
import Synchronization

/// `parlor bench turns`: what a guest waits for after a move, measured
/// against a floor in the same run.
///
/// - full turn: a real host and guest on 127.0.0.1, each with its
///   `MatchRecorder` saving into a store on the same file system as the
///   user's (`--dir` points elsewhere), the host saving before CONFIRM leaves;
/// - protocol only: the same turn with no store (the wire and the controllers);
/// - the floor: a plain blocking ping-pong of the same bytes between two
///   threads, and the same with one durable append (write + fdatasync of the
///   turn's bytes) on the store's file system before each answer;
/// - not a floor, a breakdown: the same bytes echoed through parlor's event
///   loop and a task at each end, what the network layer alone costs; and
///   the same turns, with the stores and without, on one plain thread per
///   side (`BenchThreadedTurn`), what the event loop and tasks cost.
///
/// ParlorCLI prints the figures (p50, p99 and each ratio to its floor).
public struct TurnsBench: Sendable {
    /// Starts one loopback match of the bench: a seed, the store both sides
    /// record into (nil: none), the spectators watching it (nil: none).
    /// ParlorCLI composes it (`LoopbackMatch.start`, recording as `parlor host` and `parlor join` do).
    public typealias MatchStarter = @Sendable (UInt64, MatchStore?, SpectatorLoad?) async throws -> LoopbackMatch

    /// The first figures: the full turn, the protocol alone, both floors, the breakdowns and group commit.
    public struct Figures: Sendable {
        /// The turns timed with a store, and their p50 and p99.
        public var fullTurns: Int, full: Percentiles
        /// The turns timed with no store.
        public var protocolTurns: Int, protocolOnly: Percentiles
        /// A guest's TURN frame on average, and the host's CONFIRM: the floors' request and reply.
        public var request: Int, reply: Int
        /// The plain ping-pong, and the same with one durable append before each answer.
        public var plain: Percentiles, durable: Percentiles
        /// Not a floor: the request's bytes echoed through parlor's own event
        /// loop, one task at each end (`RawPingPong`), no protocol and no
        /// store: what the network layer alone costs of the protocol-only turn.
        public var eventLoop: Percentiles
        /// Not a floor: the same turns, with and without the stores, on one
        /// plain thread per side (`BenchThreadedTurn`): parlor's own work
        /// without its event loop and tasks.
        public var threadedFull: Percentiles, threadedProtocol: Percentiles
        /// Eight matches committing a turn at once, one shared writer or one each.
        public var group: BenchGroupCommit.Figures
        /// The full turn again with both sides behind protocol 3's encrypted
        /// channel (as every LAN match is), when the bench was given a sealed starter.
        public var sealedFull: Percentiles?

        /// Issue 38's goal: sealing grows the full turn's p50 by at most 10% (same run).
        public var sealedMet: Bool? {
            sealedFull.map { $0.p50.microseconds * 100 <= full.p50.microseconds * 110 }
        }

        /// Issue 11's goals, each against its floor of the same run: the full
        /// turn's p50 at most 1.3x the floor's and its p99 at most 2x; the
        /// protocol alone's p50 at most 1.5x the plain ping-pong's.
        public var fullP50Met: Bool { full.p50.microseconds * 10 <= durable.p50.microseconds * 13 }
        public var fullP99Met: Bool { full.p99.microseconds <= durable.p99.microseconds * 2 }
        public var protocolP50Met: Bool { protocolOnly.p50.microseconds * 10 <= plain.p50.microseconds * 15 }
    }

    /// `--spectators N`: the full turn unwatched and watched, paced and flat out.
    public struct SpectatorFigures: Sendable {
        public var spectators: Int
        /// What the spectators' process received and decoded in all.
        public var received: SpectatorLoad.Received
        public var pacedTurns: Int, flatTurns: Int
        public var pacedAlone: Percentiles, pacedWatched: Percentiles
        public var flatAlone: Percentiles, flatWatched: Percentiles
        /// Timed turns per block (a match), unwatched and watched in turn.
        public static let blockTurns = 10
        /// The goal (issue 13): watched paced p50 at most 1.10x unwatched.
        public var goalMet: Bool { pacedWatched.p50.microseconds * 100 <= pacedAlone.p50.microseconds * 110 }
    }

    /// Where the bench's store is (removed by `removeStore`).
    public let directory: String
    private let store: MatchStore
    private let start: MatchStarter
    private let sealedStart: MatchStarter?
    private var generator = SplitMix64(seed: 7)

    /// Makes the bench's store in a directory of its own under `parent`.
    /// Throws the store's error when the directory cannot be made.
    /// `sealedMatch` starts the same match with both sides encrypted (protocol 3); nil leaves that line out.
    public init(parent: String, startMatch: @escaping MatchStarter, sealedMatch: MatchStarter? = nil) throws {
        directory = parent + "/" + Self.storePrefix + "\(getpid())"
        store = MatchStore(directory: directory)
        start = startMatch
        sealedStart = sealedMatch
        try store.createDirectory()
    }

    /// Times `count` guest turns with the store and `count` without, both
    /// floors, parlor's network layer alone and the turn on plain threads
    /// (with the stores and without), then group commit. The first seven are
    /// taken in turns, a slice of each at a time (at most ten slices), so a
    /// change in the machine's load (a shared disk, other processes) weighs
    /// on a figure and its floor alike.
    public mutating func measure(count: Int) async throws -> Figures {
        _ = try? DescriptorLimit.raise()
        let reply = Message.confirm(sequence: 1, stateHash: 0, deadline: 0).encoded.count
        var full: [Duration] = [], protocolOnly: [Duration] = [], plain: [Duration] = [], durable: [Duration] = []
        var loop: [Duration] = []
        var threadedFull: [Duration] = [], threadedProtocol: [Duration] = []
        var sealed: [Duration] = []
        var request = 0
        let slices = max(1, min(10, count / 100))
        for slice in 0..<slices {
            try Task.checkCancellation()
            let share = count / slices + (slice < count % slices ? 1 : 0)
            let measured = try await timeTurns(count: share, generator: &generator, store: store, start: start)
            full += measured.times
            if request == 0 { request = measured.bytes }
            protocolOnly += try await timeTurns(count: share, generator: &generator, store: nil, start: start).times
            if let sealedStart {
                sealed += try await timeTurns(count: share, generator: &generator, store: store, start: sealedStart).times
            }
            plain += try await BenchFloor.measure(request: request, reply: reply, count: share, durableIn: nil)
            durable += try await BenchFloor.measure(request: request, reply: reply, count: share, durableIn: directory)
            loop += try await RawPingPong.measure(payloadBytes: request, count: share)
            threadedFull += try await BenchThreadedTurn.measure(count: share, directory: directory, seed: generator.next())
            threadedProtocol += try await BenchThreadedTurn.measure(count: share, directory: nil, seed: generator.next())
        }
        try Task.checkCancellation()
        let group = await BenchGroupCommit.measure(directory: directory, matches: 8, rounds: max(30, min(300, count / 4)))
        return Figures(fullTurns: full.count, full: Percentiles(full),
                       protocolTurns: protocolOnly.count, protocolOnly: Percentiles(protocolOnly),
                       request: request, reply: reply, plain: Percentiles(plain), durable: Percentiles(durable),
                       eventLoop: Percentiles(loop), threadedFull: Percentiles(threadedFull),
                       threadedProtocol: Percentiles(threadedProtocol), group: group,
                       sealedFull: sealed.isEmpty ? nil : Percentiles(sealed))
    }

    /// `--spectators N`: the full turn with nobody watching and with N
    /// spectators watching from a process of their own (`SpectatorLoad`, as real
    /// spectators are on other machines), the host doing its real fan-out and
    /// saving every turn. Short blocks alternate (ABAB: a match of at most
    /// `blockTurns` timed turns unwatched, then one watched), so both figures see
    /// the same machine; the spectators are all in before a watched block's first
    /// turn and all gone before the next block. Paced first (the guest thinks
    /// 100 to 300 ms before each move, as a quick player does: the figure a
    /// player feels and the goal's, issue 13), then flat out (labelled so).
    public mutating func measureSpectators(_ spectators: Int, count: Int) async throws -> SpectatorFigures {
        let load = try SpectatorLoad(count: spectators)
        let pacedCount = max(50, min(300, count / 4))
        let paced = try await alternate(count: pacedCount, generator: &generator, store: store, load: load, thinking: 100...300,
                                        start: start)
        let flat = try await alternate(count: count, generator: &generator, store: store, load: load, thinking: nil, start: start)
        let received = load.finish()
        return SpectatorFigures(spectators: spectators, received: received, pacedTurns: pacedCount, flatTurns: count,
                                pacedAlone: Percentiles(paced.alone), pacedWatched: Percentiles(paced.watched),
                                flatAlone: Percentiles(flat.alone), flatWatched: Percentiles(flat.watched))
    }

    /// Removes the bench's store (its match, journal and lock files) and its directory.
    public func removeStore() { removeBenchStore(directory) }

    /// The start of the bench's store's name; the process id follows.
    public static let storePrefix = "bench-turns-"
}

/// `count` timed turns unwatched and as many watched by `load`, a block of each in turn.
private func alternate(count: Int, generator: inout SplitMix64, store: MatchStore, load: SpectatorLoad,
                       thinking: ClosedRange<Int>?, start: TurnsBench.MatchStarter) async throws -> (alone: [Duration], watched: [Duration]) {
    var alone: [Duration] = [], watched: [Duration] = []
    while alone.count < count || watched.count < count {
        try Task.checkCancellation()
        if alone.count < count {
            let (times, _) = try await benchOneMatch(seed: generator.next(), remaining: min(TurnsBench.SpectatorFigures.blockTurns,
                                                     count - alone.count), store: store, spectators: nil, thinking: thinking, start: start)
            alone += times
            if times.isEmpty { break }
        }
        if watched.count < count {
            let (times, _) = try await benchOneMatch(seed: generator.next(), remaining: min(TurnsBench.SpectatorFigures.blockTurns,
                                                     count - watched.count), store: store, spectators: load, thinking: thinking, start: start)
            // Their goodbyes and closes are the watched block's, not the next unwatched one's.
            try load.settle()
            watched += times
            if times.isEmpty { break }
        }
    }
    return (alone, watched)
}

/// A ratio near 1 with two decimals: a 10% goal needs them.
public func closeRatio(_ a: Duration, _ b: Duration) -> String {
    guard b > .zero else { return "-" }
    return String(format: "%.2f", Double(a.microseconds) / Double(max(1, b.microseconds)))
}

/// Times `count` guest turns over as many matches as it takes; with `store`,
/// both sides record the match there as `parlor host` and `parlor join` do.
private func timeTurns(count: Int, generator: inout SplitMix64, store: MatchStore?,
                       start: TurnsBench.MatchStarter) async throws -> (times: [Duration], bytes: Int) {
    var turns: [Duration] = [], frameBytes: [Int] = []
    while turns.count < count {
        try Task.checkCancellation()
        let (measured, bytes) = try await benchOneMatch(seed: generator.next(), remaining: count - turns.count, store: store,
                                                       start: start)
        turns += measured
        frameBytes += bytes
        if measured.isEmpty { break }
    }
    return (turns, frameBytes.isEmpty ? 200 : frameBytes.reduce(0, +) / frameBytes.count)
}

/// Removes the bench's store (its match, journal and lock files) and its directory.
private func removeBenchStore(_ directory: String) {
    for name in directoryEntryNames(directory) ?? [] { unlink(directory + "/" + name) }
    rmdir(directory)
}

/// Plays one connect4 match between a random host and the bench's random
/// guest over loopback, timing the guest's turns from `play` to `.committed`;
/// with `thinking`, the guest first waits that many milliseconds (at random) before each move.
private func benchOneMatch(seed: UInt64, remaining: Int, store: MatchStore?, spectators: SpectatorLoad? = nil,
                           thinking: ClosedRange<Int>? = nil, start: TurnsBench.MatchStarter) async throws -> ([Duration], [Int]) {
    let match = try await start(seed, store, spectators)
    var times: [Duration] = [], sizes: [Int] = []
    var pauses = SplitMix64(seed: seed ^ 0x7A1C)
    for await event in match.events {
        if times.count >= remaining || Task.isCancelled { break }
        guard case .turnBegan(let seat, let state) = event, seat == match.joined.seat else { continue }
        if let thinking {
            try? await Task.sleep(for: .milliseconds(thinking.lowerBound + Int(pauses.next() % UInt64(thinking.count))))
        }
        guard let (move, bytes) = match.randomMove(in: state) else { break }
        sizes.append(bytes)
        let started = ContinuousClock.now
        guard case .committed = await match.local.play(move) else { break }
        times.append(ContinuousClock.now - started)
    }
    // Not cut short by the bench's cancellation (Ctrl-C): the match ends, and its saves are done, before the store goes.
    await Task { await match.finish() }.value
    return (times, sizes)
}

/// p50 and p99 of a set of durations (the nearest rank below: of 100 sorted
/// values, p50 is the 50th and p99 the 99th; no values give zero).
public struct Percentiles: Sendable, Equatable {
    public let p50: Duration, p99: Duration
    public init(_ values: [Duration]) {
        let sorted = values.sorted()
        func at(_ fraction: Double) -> Duration {
            guard !sorted.isEmpty else { return .zero }
            return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction))]
        }
        p50 = at(0.5)
        p99 = at(0.99)
    }
}

extension Duration {
    /// Whole microseconds.
    public var microseconds: Int64 { components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000 }
}

/// `a / b` with one decimal, "-" when `b` is zero: a bench's ratio to its floor.
public func ratio(_ a: Duration, _ b: Duration) -> String {
    guard b > .zero else { return "-" }
    return String(format: "%.1f", Double(a.microseconds) / Double(max(1, b.microseconds)))
}

