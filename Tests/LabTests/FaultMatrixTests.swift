import Foundation
import Testing

extension LabSuite {
    /// The short fault matrix (docs/FAULTS.md): real LAN matches between two
    /// `parlor` processes in a lab of its own, each hit by one fault mid-match
    /// (10% loss, 200 ms delay with jitter, a 5 s link cut, the guest killed
    /// and resumed, a half-open link), after which both sides must hold the
    /// same complete match with no move lost or doubled, and every wait must
    /// have ended within its documented timeout. This is how CI runs it.
    @Suite(.enabled(if: LabAvailability.isAvailable && Lab.builtProduct("parlor") != nil,
                    "needs the lab (root, namespaces, avahi) and a built parlor"))
    struct FaultMatrixTests {
        @Test func theShortFaultMatrixPassesEveryRow() async throws {
            let parlor = try #require(Lab.builtProduct("parlor"))
            let script = Lab.packageRoot.appendingPathComponent("scripts/fault-matrix")
            let run = try LabProcess(
                executable: script, arguments: ["--short", "--parlor", parlor.path],
                environment: ProcessInfo.processInfo.environment)
            let status = await run.wait(timeout: 300)
            if status == nil { await run.stop() }
            let table = run.output()
            print(table)
            #expect(status == 0, "fault-matrix --short exited \(status.map(String.init) ?? "after 300 s"): \(run.errors())")

            // Rows are "| fault | what happened | moves lost | time to recover | verdict |".
            let rows = table.split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| fault ") }
            let names = rows.map { $0.split(separator: "|")[0].trimmingCharacters(in: .whitespaces) }
            #expect(names == ["loss 10%", "delay 200 ms +-50 ms jitter", "link down 5 s",
                              "SIGKILL guest + resume", "half-open: A->B dropped 8 s"], "\(table)")
            for row in rows {
                let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
                #expect(cells.last == "ok", "\(row)")
                #expect(cells.count == 5 && cells[2] == "0", "moves lost: \(row)")
            }
        }
    }
}
