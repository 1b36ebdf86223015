import Foundation
@preconcurrency import Glibc
import ParlorTestSupport
import Testing

/// Ctrl-C during a bench: it stops at once with the shell's status and
/// leaves nothing behind, neither its store in the data directory nor a host
/// process of its own (real processes, real signals).
@Suite("bench: Ctrl-C stops it and leaves nothing behind", .serialized)
struct BenchInterruptTests {
    /// The bench's own directories in `home`'s data directory.
    private func benchDirectories(_ home: String, prefix: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: home + "/parlor")) ?? []).filter { $0.hasPrefix(prefix) }
    }

    /// Waits until `condition` holds; false after `timeout`.
    private func eventually(_ timeout: Duration, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return condition()
    }

    /// Processes whose environment puts their data under `home` (the bench's host has its own home inside it).
    private func processes(under home: String) -> [pid_t] {
        let mine = getpid()
        return ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { Int32($0) }.filter { pid in
            guard pid != mine, let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
            return String(decoding: environ, as: UTF8.self).contains("XDG_DATA_HOME=\(home)/")
        }
    }

    @Test("bench turns: the signal stops it mid-run with 128 + its number, and its store is gone", arguments: [SIGINT, SIGTERM])
    func turns(signal: Int32) async throws {
        let home = temporaryDataHome()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let bench = try SpawnedParlor(["bench", "turns", "--count", "1000000"], environment: ["XDG_DATA_HOME": home])
        // Mid-run: its store has matches in it.
        let playing = await eventually(.seconds(30)) {
            benchDirectories(home, prefix: "bench-turns-").contains { directory in
                ((try? FileManager.default.contentsOfDirectory(atPath: home + "/parlor/" + directory)) ?? []).count > 4
            }
        }
        try #require(playing, "\(bench.transcript)")
        bench.send(signal)
        let status = await bench.wait(timeout: .seconds(10))
        #expect(status == 128 + signal, "\(bench.transcript)")
        #expect(bench.errors.contains("interrupted"), "\(bench.transcript)")
        #expect(!bench.output.contains("goals:"), "no figures from a run cut short")
        #expect(benchDirectories(home, prefix: "bench-turns-").isEmpty)
    }

    @Test("bench tables: Ctrl-C stops its host process too, and removes its store")
    func tables() async throws {
        let home = temporaryDataHome()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let bench = try SpawnedParlor(["bench", "tables", "--tables", "2"], environment: ["XDG_DATA_HOME": home])
        // The host process is serving and both guests sat down.
        let seated = await eventually(.seconds(60)) {
            benchDirectories(home, prefix: "bench-tables-").contains { directory in
                let log = (try? String(contentsOfFile: home + "/parlor/" + directory + "/host.log", encoding: .utf8)) ?? ""
                return log.components(separatedBy: "sat down").count > 2
            }
        }
        try #require(seated, "\(bench.transcript)")
        let hosts = processes(under: home)
        #expect(hosts.count == 1, "the bench's host process: \(hosts)")
        bench.send(SIGINT)
        let status = await bench.wait(timeout: .seconds(15))
        #expect(status == 130, "\(bench.transcript)")
        #expect(bench.errors.contains("interrupted"), "\(bench.transcript)")
        #expect(await eventually(.seconds(5)) { processes(under: home).isEmpty }, "still running: \(processes(under: home))")
        #expect(benchDirectories(home, prefix: "bench-tables-").isEmpty)
    }

    @Test("bench turns removes, and names, the store a killed run left behind")
    func leftovers() async throws {
        let home = temporaryDataHome()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let killed = try SpawnedParlor(["bench", "turns", "--count", "1000000"], environment: ["XDG_DATA_HOME": home])
        let started = await eventually(.seconds(30)) { !benchDirectories(home, prefix: "bench-turns-").isEmpty }
        try #require(started, "\(killed.transcript)")
        killed.send(SIGKILL)
        #expect(await killed.wait(timeout: .seconds(10)) == 128 + SIGKILL)
        let left = benchDirectories(home, prefix: "bench-turns-")
        #expect(left == ["bench-turns-\(killed.pid)"])
        let result = try await ParlorProcess.run(["bench", "turns", "--count", "10"], environment: ["XDG_DATA_HOME": home],
                                                 timeout: .seconds(120))
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.contains("removed 1 store that runs cut short left in \(home)/parlor: bench-turns-\(killed.pid)"),
                "\(result.stderr)")
        #expect(benchDirectories(home, prefix: "bench-turns-").isEmpty)
    }
}
