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
        /// Runs `scripts/fault-matrix ARGUMENTS --parlor` with the built parlor; its status
        /// (nil: stopped after `timeout` seconds), its report (printed too) and its stderr.
        static func faultMatrix(_ arguments: [String], timeout: Double) async throws -> (Int32?, String, String) {
            let parlor = try #require(Lab.builtProduct("parlor"))
            let script = Lab.packageRoot.appendingPathComponent("scripts/fault-matrix")
            let run = try LabProcess(executable: script, arguments: arguments + ["--parlor", parlor.path],
                                     environment: ProcessInfo.processInfo.environment)
            let status = await run.wait(timeout: timeout)
            if status == nil { await run.stop() }
            let report = run.output()
            print(report)
            return (status, report, run.errors())
        }

        @Test func theShortFaultMatrixPassesEveryRow() async throws {
            let (status, table, errors) = try await Self.faultMatrix(["--short"], timeout: 300)
            #expect(status == 0, "fault-matrix --short exited \(status.map(String.init) ?? "after 300 s"): \(errors)")

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

        /// Bot matches of every game across a wire with 2% loss and 20 ms
        /// +-10 ms of jitter each way (docs/SOAK.md): every match
        /// ends on both sides with the same final state, and both processes
        /// exit 0 at once. A guest that exited right after its GOODBYE used to
        /// answer the host's late GOODBYE with a reset, which could overtake
        /// its own: about one host in ten then waited its whole grace period
        /// for an end its guest had acknowledged.
        @Test func theSoakEndsEveryMatchOnBothSides() async throws {
            let (status, report, errors) = try await Self.faultMatrix(["--soak", "24"], timeout: 400)
            #expect(status == 0, "fault-matrix --soak exited \(status.map(String.init) ?? "after 400 s"): \(report) \(errors)")
            #expect(report.contains("matches played: 24"), "\(report)")
            #expect(report.contains("desyncs: 0"), "\(report)")
            #expect(report.contains("failed matches: 0"), "\(report)")
        }
    }
}
