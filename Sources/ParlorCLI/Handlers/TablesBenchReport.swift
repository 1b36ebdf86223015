import Bench
import Foundation
import Session

/// Runs `parlor bench tables` (Bench's `TablesBench`) for each table count
/// and prints its figures, with the floor measured in the same run.
func runBenchTables(_ options: BenchTablesOptions) async throws -> ExitCode {
    let soft = (try? DescriptorLimit.raise()) ?? 1024
    let parent = options.directory ?? LocalData.directory
    reportLeftovers(BenchLeftovers.remove(in: parent, prefix: TablesBench.storePrefix), bench: "tables", parent: parent)
    // Ctrl-C stops the bench at once: its host process is stopped and its store removed.
    let (result, signal) = await BenchInterruption.run({ () -> Bool in
        var failed = false
        for count in options.tables {
            let needed = TablesBench.descriptorsNeeded(tables: count)
            guard soft >= UInt64(needed) else {
                Console.writeError("parlor: bench tables: \(count) guests need \(needed) open files; this process may open \(soft) (ulimit -n)\n")
                failed = true
                continue
            }
            do {
                let figures = try await TablesBench.run(tables: count, parent: parent, appVersion: ParlorVersion.current)
                let floor = try await TablesBench.floor(turnBytes: figures.turnBytes, durableIn: parent)
                Console.write(figures.report + """
                      floor (plain blocking ping-pong + one durable append of \(figures.turnBytes) bytes, same file system): \
                    p50 \(floor.roundTrip.p50.microseconds) µs   p99 \(floor.roundTrip.p99.microseconds) µs; paced round trip to floor: \
                    p50 \(ratio(figures.pacedP50, floor.roundTrip.p50))x   p99 \(ratio(figures.pacedP99, floor.roundTrip.p99))x
                      CPU floor (the answering thread of two such rounds: a turn saves the guest's move and the bot's): \
                    \(floor.cpuPerTurn.microseconds) µs per turn; host CPU per turn to floor: \(ratio(figures.cpuPerTurn, floor.cpuPerTurn))x
                    \(figures.goalLine)
                    """)
            } catch {
                if Task.isCancelled { return failed }
                Console.writeError("parlor: bench tables (\(count) table\(count == 1 ? "" : "s")): \(error)\n")
                failed = true
            }
        }
        return failed
    }, cleanUpNow: { TablesBench.stopNow() })
    if let signal {
        Console.writeError("parlor: bench tables: interrupted; its host process is stopped and its store removed\n")
        return ExitCode(endedBy: signal)
    }
    let failed = (try? result.get()) ?? true
    Console.write("""
          goals: 1,000 tables in one process, p99 turn < 10 ms with durable saves and the bot answering at once, \
        < 64 KiB resident per idle table, idle CPU < 1% of a core, at most 150 µs of host CPU per turn, \
        at least 5,000 turns/s flat out

        """)
    return failed ? .failure : .success
}

extension TablesBench.Figures {
    /// Whether this run met each goal (the goals are for 1,000 tables).
    var goalLine: String {
        return "  goals at \(tables) tables\(tables >= 1000 ? "" : " (the goals are for 1,000)"): "
            + "paced p99 < 10 ms \(goalVerdict(pacedP99Met)), "
            + "< 64 KiB per idle table \(goalVerdict(memoryMet)), "
            + "idle CPU < 1% of a core \(goalVerdict(idleCPUMet)); "
            + "CPU per turn <= 150 µs \(goalVerdict(cpuPerTurnMet)), flat out >= 5,000 turns/s \(goalVerdict(turnsPerSecondMet))\n"
    }

    /// The lines of one table count, before the floor's.
    var report: String {
        let perTable = bytesPerIdleTable
        return """
            parlor bench tables: \(tables) tables in one host process (connect4, easy bot, every turn saved), \
            \(seated) guests seated over 127.0.0.1 in \(String(format: "%.1f", seatSeconds)) s
              paced (every guest thinks 1-3 s before each move, \(TablesBench.pacedTime.components.seconds) s): \(pacedTurns) turns, \
            round trip p50 \(pacedP50.microseconds) µs   p99 \(pacedP99.microseconds) µs, host CPU \(String(format: "%.1f", pacedCPUPercent))% of a core
              flat out: \(turns) guest turns in \(String(format: "%.1f", playSeconds)) s = \
            \(String(format: "%.0f", turnsPerSecond)) turns/s \
            (every guest moving as soon as it may)\(unfinished > 0 ? ", \(unfinished) matches unfinished" : "")
              turn round trip (a guest's move until the bot's answer arrives): p50 \(p50.microseconds) µs   p99 \(p99.microseconds) µs
              host resident memory: \(baseRSS / 1024) KiB listening, \(idleRSS / 1024) KiB with every table seated and idle = \
            \(perTable / 1024) KiB per idle table
              host CPU: \(String(format: "%.2f", idleCPUPercent))% of a core while every table is idle (\(TablesBench.idleTime.components.seconds) s), \
            \(cpuPerTurn.microseconds) µs per turn while playing
              host open descriptors with every table seated: \(descriptors)

            """
    }
}
