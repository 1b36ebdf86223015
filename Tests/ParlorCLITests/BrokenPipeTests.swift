import Foundation
@preconcurrency import Glibc
import ParlorTestSupport
import Testing

/// Issue 17 item 15: `parlor host --json … | head -8`. When the reader of the
/// host's stdout goes away, the host is not killed by SIGPIPE: it leaves the
/// match for now, as when its terminal is lost, and the guest hears
/// "leaving, may resume", not a closed connection.
@Suite(.serialized) struct BrokenPipeTests {
    /// A `parlor` whose stdout is a pipe this test reads and may close early.
    final class PipedParlor: @unchecked Sendable {
        let pid: pid_t
        private(set) var reader: Int32
        private var received: [UInt8] = []

        init(_ arguments: [String], environment: [String: String]) throws {
            var ends: [Int32] = [-1, -1]
            try #require(pipe(&ends) == 0)
            _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            let merged = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
            let argv = ([ParlorBinary.url.path] + arguments).map { strdup($0) } + [nil]
            let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { for pointer in argv + envp { free(pointer) } }
            var child: pid_t = 0
            let result = posix_spawn(&child, ParlorBinary.url.path, &actions, nil, argv, envp)
            close(ends[1])
            try #require(result == 0)
            pid = child
            reader = ends[0]
        }

        /// Reads until a line contains `text`; that line, or nil after `timeout`.
        func line(containing text: String, timeout: Duration = .seconds(20)) async -> String? {
            let deadline = ContinuousClock.now + timeout
            var chunk = [UInt8](repeating: 0, count: 4096)
            while ContinuousClock.now < deadline {
                let count = chunk.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
                if count > 0 { received += chunk[0..<count] }
                let lines = String(decoding: received, as: UTF8.self).split(separator: "\n")
                if let found = lines.first(where: { $0.contains(text) }) { return String(found) }
                if count <= 0 { try? await Task.sleep(for: .milliseconds(20)) }
            }
            return nil
        }

        /// What `head` does when it has its lines: closes the pipe.
        func closeReader() {
            close(reader)
            reader = -1
        }

        /// The exit status, 128 + N for signal N, or nil after `timeout`.
        func wait(timeout: Duration) async -> Int32? {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                var raw: Int32 = 0
                if waitpid(pid, &raw, WNOHANG) == pid {
                    let signal = raw & 0x7F
                    return signal == 0 ? (raw >> 8) & 0xFF : 128 + signal
                }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return nil
        }

        deinit {
            if reader >= 0 { close(reader) }
            kill(pid, SIGKILL)
            var raw: Int32 = 0
            _ = waitpid(pid, &raw, WNOHANG)
        }
    }

    @Test("a host whose stdout reader went away leaves for now, and the guest reads 'leaving, may resume'")
    func aHostPipedIntoHeadLeavesForNow() async throws {
        let table = ResumeEndToEndTests.Table()
        let host = try PipedParlor(["host", "connect4", "--bot", "easy", "--json", "--port", "0", "--seat", "first", "--grace", "60"],
                                   environment: table.environment(.host))
        let listening = try #require(await host.line(containing: "\"listening\""))
        let port = try #require(ResumeEndToEndTests.port(from: listening))
        let guest = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--json", "--grace", "60"],
                                      environment: table.environment(.guest), keepStdinOpen: true)
        #expect(await guest.line(containing: "\"event\":\"turn\",\"seat\":1") != nil, Comment(rawValue: guest.transcript))
        #expect(await host.line(containing: "\"event\":\"turn\",\"seat\":1") != nil)
        host.closeReader()
        // The guest's move makes the host write an event into the closed pipe.
        guest.type("4\n")
        let status = await host.wait(timeout: .seconds(20))
        // 129, as when its terminal is lost, and not 141, killed by SIGPIPE.
        #expect(status == 129, "the host ended with status \(String(describing: status))")
        #expect(await guest.line(containing: "leaving, may resume", timeout: .seconds(10)) != nil, Comment(rawValue: guest.transcript))
        #expect(!guest.output.contains("closed"), Comment(rawValue: guest.transcript))
        let listed = try await table.matches(on: .host)
        #expect(listed.contains("\"state\":\"interrupted\""), Comment(rawValue: listed))
    }
}
