import Foundation
import Bots
import Games
import Match
import Session
import Store
import Synchronization

/// Runs `parlor bench turns`: what a guest waits for after a move, measured
/// against a floor in the same run.
///
/// - full turn: a real host and guest on 127.0.0.1, each with its
///   `MatchRecorder` saving into a store on the same file system as the
///   user's (`--dir` points elsewhere), the host saving before CONFIRM leaves;
/// - protocol only: the same turn with no store (the wire and the controllers);
/// - the floor: a plain blocking ping-pong of the same bytes between two
///   threads, and the same with one durable append (write + fdatasync of the
///   turn's bytes) on the store's file system before each answer.
///
/// Prints p50, p99 and each ratio to its floor.
func runBenchTurns(_ options: BenchTurnsOptions) async throws -> ExitCode {
    // The bench's own spectators, started again by `--spectators` as a process of their own.
    if let load = ProcessInfo.processInfo.environment[SpectatorLoad.variable].flatMap({ Int($0) }) {
        return SpectatorLoad.serve(count: load)
    }
    _ = try? DescriptorLimit.raise()
    let parent = options.directory ?? LocalData.directory
    let directory = parent + "/bench-turns-\(getpid())"
    let store = MatchStore(directory: directory)
    do { try store.createDirectory() } catch {
        Console.writeError("parlor: bench turns: cannot make a store in \(parent): \(error)\n")
        return .failure
    }
    defer { removeBenchStore(directory) }
    var generator = SplitMix64(seed: 7)
    let full = try await timeTurns(count: options.count, generator: &generator, store: store)
    let protocolOnly = try await timeTurns(count: options.count, generator: &generator, store: nil)
    let request = full.bytes
    let reply = Message.confirm(sequence: 1, stateHash: 0, deadline: 0).encoded.count
    let plain = try await BenchFloor.measure(request: request, reply: reply, count: options.count, durableIn: nil)
    let durable = try await BenchFloor.measure(request: request, reply: reply, count: options.count, durableIn: directory)
    let group = await BenchGroupCommit.measure(directory: directory, matches: 8, rounds: max(30, min(300, options.count / 4)))
    let fullStats = Percentiles(full.times), protocolStats = Percentiles(protocolOnly.times)
    let plainStats = Percentiles(plain), floorStats = Percentiles(durable)
    Console.write("""
        parlor bench turns: \(full.times.count) + \(protocolOnly.times.count) guest turns in connect4 matches over 127.0.0.1, \
        ~\(request) bytes out, \(reply) back
          full turn (real host and guest, each saving to a store in \(parent))
            p50 \(fullStats.p50.microseconds) µs   p99 \(fullStats.p99.microseconds) µs   \
        ratio to floor: p50 \(ratio(fullStats.p50, floorStats.p50))x   p99 \(ratio(fullStats.p99, floorStats.p99))x
          protocol only (no store)
            p50 \(protocolStats.p50.microseconds) µs   p99 \(protocolStats.p99.microseconds) µs   \
        ratio to plain ping-pong: p50 \(ratio(protocolStats.p50, plainStats.p50))x   p99 \(ratio(protocolStats.p99, plainStats.p99))x
          floor: plain blocking ping-pong + one durable append (write + fdatasync of \(request) bytes, same file system)
            p50 \(floorStats.p50.microseconds) µs   p99 \(floorStats.p99.microseconds) µs
          plain blocking ping-pong (two threads, no event loop, no tasks)
            p50 \(plainStats.p50.microseconds) µs   p99 \(plainStats.p99.microseconds) µs
          group commit: 8 matches in one process each committing a turn at once (a round), saved before revealing
            one writer, one sync per round: p50 \(group.grouped.p50.microseconds) µs   p99 \(group.grouped.p99.microseconds) µs   \
        \(String(format: "%.1f", group.framesPerSync)) turns per sync
            a writer per match, a sync each: p50 \(group.separate.p50.microseconds) µs   p99 \(group.separate.p99.microseconds) µs   \
        ratio grouped/separate p50 \(ratio(group.grouped.p50, group.separate.p50))x
          goals: full p50 <= 1.3x floor, p99 <= 2x; protocol only p50 <= 1.5x plain

        """)
    if options.spectators > 0 { try await benchSpectators(options, generator: &generator, store: store) }
    return .success
}

/// `--spectators N`: the full turn with nobody watching and with N
/// spectators watching from a process of their own (`SpectatorLoad`, as real
/// spectators are on other machines), the host doing its real fan-out and
/// saving every turn. Matches alternate, one unwatched then one watched, so
/// both figures see the same machine. First paced (the guest thinks 250 to
/// 750 ms before each move, as a quick player does), then flat out; each with
/// its ratio against the goal of at most 10% more (issue 13).
private func benchSpectators(_ options: BenchTurnsOptions, generator: inout SplitMix64, store: MatchStore) async throws {
    let load = try SpectatorLoad(count: options.spectators)
    let pacedCount = max(20, min(200, options.count / 25))
    let paced = try await alternate(count: pacedCount, generator: &generator, store: store, load: load, thinking: 250...750)
    let flat = try await alternate(count: options.count, generator: &generator, store: store, load: load, thinking: nil)
    let received = load.finish()
    func lines(_ figures: (alone: [Duration], watched: [Duration])) -> String {
        let alone = Percentiles(figures.alone), watched = Percentiles(figures.watched)
        return "      nobody watching: p50 \(alone.p50.microseconds) µs   p99 \(alone.p99.microseconds) µs\n"
            + "      \(options.spectators) watching:     p50 \(watched.p50.microseconds) µs   p99 \(watched.p99.microseconds) µs   "
            + "ratio to nobody watching: p50 \(closeRatio(watched.p50, alone.p50))x   p99 \(closeRatio(watched.p99, alone.p99))x"
    }
    Console.write("""
          full turn with \(options.spectators) spectators (a process of their own at nice 19, each its own loopback connection \
        reading every byte: \(received / 1024) KiB in all), matches alternating unwatched and watched
            paced (the guest thinks 250-750 ms before each move), \(pacedCount) turns each:
        \(lines(paced))
            flat out (the guest moves as soon as it may), \(options.count) turns each:
        \(lines(flat))
          goal: \(options.spectators) spectators change the players' turn by at most 10% (p50 <= 1.1x), paced and flat out

        """)
}

/// `count` timed turns unwatched and as many watched by `load`, a match of each in turn.
private func alternate(count: Int, generator: inout SplitMix64, store: MatchStore, load: SpectatorLoad,
                       thinking: ClosedRange<Int>?) async throws -> (alone: [Duration], watched: [Duration]) {
    var alone: [Duration] = [], watched: [Duration] = []
    while alone.count < count || watched.count < count {
        if alone.count < count {
            let (times, _) = try await benchOneMatch(seed: generator.next(), remaining: count - alone.count, store: store,
                                                     spectators: nil, thinking: thinking)
            alone += times
            if times.isEmpty { break }
        }
        if watched.count < count {
            let (times, _) = try await benchOneMatch(seed: generator.next(), remaining: count - watched.count, store: store,
                                                     spectators: load, thinking: thinking)
            watched += times
            if times.isEmpty { break }
        }
    }
    return (alone, watched)
}

/// A ratio near 1 with two decimals: a 10% goal needs them.
private func closeRatio(_ a: Duration, _ b: Duration) -> String {
    guard b > .zero else { return "-" }
    return String(format: "%.2f", Double(a.microseconds) / Double(max(1, b.microseconds)))
}

/// Times `count` guest turns over as many matches as it takes; with `store`,
/// both sides record the match there as `parlor host` and `parlor join` do.
private func timeTurns(count: Int, generator: inout SplitMix64, store: MatchStore?) async throws -> (times: [Duration], bytes: Int) {
    var turns: [Duration] = [], frameBytes: [Int] = []
    while turns.count < count {
        let (measured, bytes) = try await benchOneMatch(seed: generator.next(), remaining: count - turns.count, store: store)
        turns += measured
        frameBytes += bytes
        if measured.isEmpty { break }
    }
    return (turns, frameBytes.isEmpty ? 200 : frameBytes.reduce(0, +) / frameBytes.count)
}

/// Removes the bench's store (its match, journal and lock files) and its directory.
private func removeBenchStore(_ directory: String) {
    guard let dir = opendir(directory) else { return }
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        if name != ".", name != ".." { unlink(directory + "/" + name) }
    }
    closedir(dir)
    rmdir(directory)
}

/// Plays one connect4 match between a random host and the bench's random
/// guest over loopback, timing the guest's turns from `play` to `.committed`;
/// with `thinking`, the guest first waits that many milliseconds (at random) before each move.
private func benchOneMatch(seed: UInt64, remaining: Int, store: MatchStore?, spectators: SpectatorLoad? = nil,
                           thinking: ClosedRange<Int>? = nil) async throws -> ([Duration], [Int]) {
    let match = try await LoopbackMatch.start(seed: seed, store: store, spectators: spectators)
    var times: [Duration] = [], sizes: [Int] = []
    var pauses = SplitMix64(seed: seed ^ 0x7A1C)
    for await event in match.events {
        if times.count >= remaining { break }
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
    await match.finish()
    return (times, sizes)
}

/// p50 and p99 of a set of durations.
struct Percentiles {
    let p50: Duration, p99: Duration
    init(_ values: [Duration]) {
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
    var microseconds: Int64 { components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000 }
}

func ratio(_ a: Duration, _ b: Duration) -> String {
    guard b > .zero else { return "-" }
    return String(format: "%.1f", Double(a.microseconds) / Double(max(1, b.microseconds)))
}

