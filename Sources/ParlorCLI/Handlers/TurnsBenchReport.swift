import Bench
import Foundation
import Session

/// Runs `parlor bench turns` (the measuring is Bench's `TurnsBench`) and
/// prints its figures: p50, p99 and each ratio to its floor.
func runBenchTurns(_ options: BenchTurnsOptions) async throws -> ExitCode {
    // The bench's own spectators, started again by `--spectators` as a process of their own.
    if let load = ProcessInfo.processInfo.environment[SpectatorLoad.variable].flatMap({ Int($0) }) {
        SpectatorLoad.serve(count: load, appVersion: ParlorVersion.current)
        return .success
    }
    let parent = options.directory ?? LocalData.directory
    reportLeftovers(BenchLeftovers.remove(in: parent, prefix: TurnsBench.storePrefix), bench: "turns", parent: parent)
    let bench: TurnsBench
    do {
        bench = try TurnsBench(parent: parent, startMatch: { try await LoopbackMatch.start(seed: $0, store: $1, spectators: $2) },
                               sealedMatch: { try await LoopbackMatch.start(seed: $0, store: $1, spectators: $2, sealed: true) })
    } catch {
        Console.writeError("parlor: bench turns: cannot make a store in \(parent): \(error)\n")
        return .failure
    }
    // Ctrl-C stops the measuring at the next turn. The store is removed however it ends.
    let (result, signal) = await BenchInterruption.run({ () throws -> TurnsBench.SpectatorFigures? in
        var bench = bench
        // The first figures are out before the spectators' run starts.
        printTurns(try await bench.measure(count: options.count), parent: parent)
        printHandshake(try await HandshakeBench.measure(count: 20, appVersion: ParlorVersion.current), where: "a fresh host in this process")
        printHandshake(try await HandshakeBench.measureAcrossProcesses(count: 20, parent: parent, appVersion: ParlorVersion.current),
                       where: "a host in another process, a table each")
        return options.spectators > 0 ? try await bench.measureSpectators(options.spectators, count: options.count) : nil
    }, cleanUp: { bench.removeStore() }, cleanUpNow: { bench.removeStore() })
    if let signal {
        Console.writeError("parlor: bench turns: interrupted; its store in \(bench.directory) is removed\n")
        return ExitCode(endedBy: signal)
    }
    if let spectators = try result.get() { printSpectators(spectators) }
    return .success
}

/// The first figures: the full turn, the protocol alone, the floors, the breakdowns, group commit and the goals.
private func printTurns(_ figures: TurnsBench.Figures, parent: String) {
    let full = figures.full, protocolStats = figures.protocolOnly, plainStats = figures.plain, floorStats = figures.durable
    let group = figures.group, threaded = figures.threadedFull, threadedBare = figures.threadedProtocol
    Console.write("""
        parlor bench turns: \(figures.fullTurns) + \(figures.protocolTurns) guest turns in connect4 matches over 127.0.0.1, \
        ~\(figures.request) bytes out, \(figures.reply) back
          full turn (real host and guest, each saving to a store in \(parent))
            p50 \(full.p50.microseconds) µs   p99 \(full.p99.microseconds) µs   \
        ratio to floor: p50 \(ratio(full.p50, floorStats.p50))x   p99 \(ratio(full.p99, floorStats.p99))x
        \(sealedLines(figures))  protocol only (no store)
            p50 \(protocolStats.p50.microseconds) µs   p99 \(protocolStats.p99.microseconds) µs   \
        ratio to plain ping-pong: p50 \(ratio(protocolStats.p50, plainStats.p50))x   p99 \(ratio(protocolStats.p99, plainStats.p99))x
          floor: plain blocking ping-pong + one durable append (write + fdatasync of \(figures.request) bytes, same file system)
            p50 \(floorStats.p50.microseconds) µs   p99 \(floorStats.p99.microseconds) µs
          plain blocking ping-pong (two threads, no event loop, no tasks)
            p50 \(plainStats.p50.microseconds) µs   p99 \(plainStats.p99.microseconds) µs
          breakdown, not a floor: the same bytes echoed through parlor's event loop, one task at each end, no protocol
            p50 \(figures.eventLoop.p50.microseconds) µs   p99 \(figures.eventLoop.p99.microseconds) µs   \
        ratio to plain ping-pong: p50 \(ratio(figures.eventLoop.p50, plainStats.p50))x   p99 \(ratio(figures.eventLoop.p99, plainStats.p99))x
          breakdown, not a floor: the same turns on one plain thread per side (parlor's frames, validation and stores; \
        no event loop, no tasks)
            with the stores: p50 \(threaded.p50.microseconds) µs   p99 \(threaded.p99.microseconds) µs   \
        ratio to floor: p50 \(ratio(threaded.p50, floorStats.p50))x   p99 \(ratio(threaded.p99, floorStats.p99))x
            no store:        p50 \(threadedBare.p50.microseconds) µs   p99 \(threadedBare.p99.microseconds) µs   \
        ratio to plain ping-pong: p50 \(ratio(threadedBare.p50, plainStats.p50))x   p99 \(ratio(threadedBare.p99, plainStats.p99))x
          group commit: 8 matches in one process each committing a turn at once (a round), saved before revealing
            one writer, one sync per round: p50 \(group.grouped.p50.microseconds) µs   p99 \(group.grouped.p99.microseconds) µs   \
        \(String(format: "%.1f", group.framesPerSync)) turns per sync
            a writer per match, a sync each: p50 \(group.separate.p50.microseconds) µs   p99 \(group.separate.p99.microseconds) µs   \
        ratio grouped/separate p50 \(ratio(group.grouped.p50, group.separate.p50))x
          goals: full p50 <= 1.3x floor: \(goalVerdict(figures.fullP50Met)); full p99 <= 2x floor: \(goalVerdict(figures.fullP99Met)); \
        protocol only p50 <= 1.5x plain: \(goalVerdict(figures.protocolP50Met))

        """)
}

/// What protocol 3's handshake adds to joining.
private func printHandshake(_ figures: HandshakeBench.Figures, where host: String) {
    Console.write("""
          joining (connect to WELCOME, \(host) on 127.0.0.1), \(figures.joins) joins each way, alternating
            in clear: p50 \(figures.clear.p50.microseconds) µs   p99 \(figures.clear.p99.microseconds) µs
            sealed (Noise XX with both players' keys): p50 \(figures.sealed.p50.microseconds) µs   \
        p99 \(figures.sealed.p99.microseconds) µs   added p50 \((figures.sealed.p50 - figures.clear.p50).microseconds) µs
            sealed, proving a passcode (CPace, XXpsk3): p50 \(figures.withCode.p50.microseconds) µs   \
        p99 \(figures.withCode.p99.microseconds) µs   added p50 \((figures.withCode.p50 - figures.clear.p50).microseconds) µs
          goal: the handshake adds at most 2 ms to joining, with a passcode too: \(goalVerdict(figures.goalMet))

        """)
}

/// The sealed full turn's lines (issue 38's goal), or nothing.
private func sealedLines(_ figures: TurnsBench.Figures) -> String {
    guard let sealed = figures.sealedFull, let met = figures.sealedMet else { return "" }
    return "  full turn, sealed (both sides behind protocol 3's encrypted channel, as every LAN match)\n"
        + "    p50 \(sealed.p50.microseconds) µs   p99 \(sealed.p99.microseconds) µs   "
        + "ratio to the full turn in clear: p50 \(closeRatio(sealed.p50, figures.full.p50))x   "
        + "p99 \(closeRatio(sealed.p99, figures.full.p99))x   goal p50 <= 1.10x: \(goalVerdict(met))\n"
}

/// `--spectators N`'s lines: paced, then flat out, each unwatched and watched.
private func printSpectators(_ figures: TurnsBench.SpectatorFigures) {
    func lines(_ alone: Percentiles, _ watched: Percentiles) -> String {
        "      nobody watching: p50 \(alone.p50.microseconds) µs   p99 \(alone.p99.microseconds) µs\n"
            + "      \(figures.spectators) watching:     p50 \(watched.p50.microseconds) µs   p99 \(watched.p99.microseconds) µs   "
            + "ratio to nobody watching: p50 \(closeRatio(watched.p50, alone.p50))x   p99 \(closeRatio(watched.p99, alone.p99))x"
    }
    Console.write("""
          full turn with \(figures.spectators) spectators (a process of their own at nice 19, each its own loopback connection, \
        reading and decoding every frame: \(figures.received.frames) frames, \(figures.received.bytes / 1024) KiB, \
        \(figures.received.undecoded) undecodable), blocks of at most \(TurnsBench.SpectatorFigures.blockTurns) turns \
        alternating unwatched and watched
            paced (the guest thinks 100-300 ms before each move), \(figures.pacedTurns) turns each:
        \(lines(figures.pacedAlone, figures.pacedWatched))
            flat out (not the goal: the guest moves at once, sharing the cores with the fan-out), \(figures.flatTurns) turns each:
        \(lines(figures.flatAlone, figures.flatWatched))
          goal: \(figures.spectators) spectators change the players' paced turn by at most 10% (p50 <= 1.10x): \
        \(goalVerdict(figures.goalMet)) (load average \(BotBench.loadAverage()))

        """)
}
