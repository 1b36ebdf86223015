import Foundation
@preconcurrency import Glibc
import Testing

/// A LAN match between two lab hosts whose link goes down: a short cut heals
/// by itself (the guest reconnects within the grace period); a cut longer
/// than the grace period leaves the match interrupted on both sides, and
/// `parlor resume` on both sides finishes it. The guest is a "person" whose
/// moves the test writes into a FIFO, so the match waits as long as needed.
/// Serialized: each test brings up its own lab on a two-core machine.
@Suite(.serialized, .enabled(if: LabAvailability.isAvailable && Lab.builtProduct("parlor") != nil,
                             "needs the lab (root, namespaces, avahi) and a built parlor"))
struct LinkCutTests {
    static let port = "7600"

    /// A data home and a FIFO for the guest's moves, removed afterwards.
    final class Scratch: @unchecked Sendable {
        let root: String
        let hostHome: String
        let guestHome: String
        let fifo: String
        private var writer: Int32 = -1

        init() {
            var template = Array("/tmp/parlor-lab-XXXXXX".utf8CString)
            let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
            root = made.map { String(cString: $0) } ?? "/tmp/parlor-lab-\(getpid())"
            hostHome = root + "/host"
            guestHome = root + "/guest"
            fifo = root + "/moves"
            mkdir(hostHome, 0o700)
            mkdir(guestHome, 0o700)
            mkfifo(fifo, 0o600)
            // Read-write, so opening never blocks and the guest never sees end of input.
            writer = open(fifo, O_RDWR | O_CLOEXEC)
        }

        /// Types one move line for the guest.
        func type(_ line: String) {
            let bytes = Array((line + "\n").utf8)
            _ = bytes.withUnsafeBytes { write(writer, $0.baseAddress, bytes.count) }
        }

        deinit {
            if writer >= 0 { close(writer) }
            try? FileManager.default.removeItem(atPath: root)
        }
    }

    static func parlor() throws -> String {
        try #require(Lab.builtProduct("parlor")).path
    }

    /// `parlor ARGS` with `home` as its data home, as a lab command.
    static func command(_ home: String, _ arguments: [String]) throws -> [String] {
        ["env", "XDG_DATA_HOME=\(home)", try parlor()] + arguments
    }

    /// The guest, reading its moves from the FIFO.
    static func guestCommand(_ scratch: Scratch, _ arguments: [String]) throws -> [String] {
        let line = (try command(scratch.guestHome, arguments)).map { "'\($0)'" }.joined(separator: " ")
        return ["sh", "-c", "exec \(line) < '\(scratch.fifo)'"]
    }

    static func setLink(_ lab: Lab, up: Bool) async throws {
        let result = await lab.run(host: "B", ["ip", "link", "set", "eth0", up ? "up" : "down"])
        #expect(result.succeeded, "ip link set eth0 \(up ? "up" : "down") failed: \(result.standardError)")
    }

    @Test func aTenSecondLinkCutHealsWithoutResume() async throws {
        let scratch = Scratch()
        try await Lab.with(hosts: 2) { lab in
            let host = try lab.start(host: "A", try Self.command(scratch.hostHome, [
                "host", "connect4", "--bot", "easy", "--json", "--port", Self.port, "--seat", "first",
                "--heartbeat-timeout", "3", "--grace", "60", "--name", "Ana",
            ]))
            try await host.waitForOutput(containing: "\"listening\"", timeout: 15)
            let guest = try lab.start(host: "B", try Self.guestCommand(scratch, [
                "join", "\(lab.address(of: "A")):\(Self.port)", "--json", "--grace", "60", "--name", "Bo",
            ]))
            try await guest.waitForOutput(containing: "\"event\":\"turn\",\"seat\":1,\"sequence\":1", timeout: 15)
            scratch.type("1")
            try await guest.waitForOutput(containing: "\"event\":\"turn\",\"seat\":1,\"sequence\":3", timeout: 15)

            let cut = ContinuousClock.now
            try await Self.setLink(lab, up: false)
            // Both sides notice within the 3 s heartbeat timeout and wait.
            try await host.waitForOutput(containing: "waiting for Bo to come back", timeout: 10)
            try await guest.waitForOutput(containing: "waiting for Ana to come back", timeout: 10)
            try await Task.sleep(until: cut + .seconds(10))
            try await Self.setLink(lab, up: true)
            let healed = ContinuousClock.now
            try await guest.waitForOutput(containing: "Ana is back", timeout: 30)
            let back = ContinuousClock.now - healed
            print("link cut test: the guest was back \(back) after the link came up")

            // The match goes on: a move, then the guest quits; both see the same end.
            scratch.type("2")
            try await guest.waitForOutput(containing: "\"event\":\"turn\",\"seat\":1,\"sequence\":5", timeout: 15)
            scratch.type("/quit")
            #expect(await guest.wait(timeout: 15) == 0, "guest: \(guest.output())\(guest.errors())")
            #expect(await host.wait(timeout: 15) == 0, "host: \(host.output())\(host.errors())")
            let hostEnd = host.output().split(separator: "\n").last { $0.contains("\"event\":\"end\"") }
            let guestEnd = guest.output().split(separator: "\n").last { $0.contains("\"event\":\"end\"") }
            #expect(hostEnd != nil && hostEnd == guestEnd)
            #expect(!host.output().contains("\"kind\":\"connectionLost\""))
        }
    }

    @Test func aCutLongerThanTheGracePeriodInterruptsBothSidesAndResumeFinishesIt() async throws {
        let scratch = Scratch()
        try await Lab.with(hosts: 2) { lab in
            let host = try lab.start(host: "A", try Self.command(scratch.hostHome, [
                "host", "connect4", "--bot", "easy", "--json", "--port", Self.port, "--seat", "first",
                "--heartbeat-timeout", "2", "--grace", "5", "--name", "Ana",
            ]))
            try await host.waitForOutput(containing: "\"listening\"", timeout: 15)
            let guest = try lab.start(host: "B", try Self.guestCommand(scratch, [
                "join", "\(lab.address(of: "A")):\(Self.port)", "--json", "--grace", "5", "--name", "Bo",
            ]))
            try await guest.waitForOutput(containing: "\"event\":\"turn\",\"seat\":1,\"sequence\":1", timeout: 15)
            scratch.type("1")
            try await guest.waitForOutput(containing: "\"event\":\"turn\",\"seat\":1,\"sequence\":3", timeout: 15)

            try await Self.setLink(lab, up: false)
            // Heartbeat timeout 2 s + grace 5 s: both give up and save the match as interrupted (exit 75).
            #expect(await host.wait(timeout: 30) == 75, "host: \(host.output())\(host.errors())")
            #expect(await guest.wait(timeout: 30) == 75, "guest: \(guest.output())\(guest.errors())")
            try await Self.setLink(lab, up: true)
            for (side, home) in [("A", scratch.hostHome), ("B", scratch.guestHome)] {
                let listed = await lab.run(host: side, try Self.command(home, ["matches", "--json"]))
                #expect(listed.standardOutput.contains("\"state\":\"interrupted\""), "\(side): \(listed.standardOutput)")
            }

            // Resume on both sides, the guest first: it keeps trying until the host is back.
            let guestResume = try lab.start(host: "B", try Self.command(scratch.guestHome, ["resume", "--bot", "easy", "--json"]))
            try await Task.sleep(for: .seconds(1))
            let hostResume = try lab.start(host: "A", try Self.command(scratch.hostHome, ["resume", "--bot", "easy", "--json"]))
            #expect(await hostResume.wait(timeout: 60) == 0, "host resume: \(hostResume.output())\(hostResume.errors())")
            #expect(await guestResume.wait(timeout: 60) == 0, "guest resume: \(guestResume.output())\(guestResume.errors())")
            #expect(hostResume.output().contains("\"port\":\(Self.port)"), "the host should listen on its old port again")

            let joined = guestResume.output().split(separator: "\n").first { $0.contains("\"event\":\"joined\"") }
            let id = try #require(joined.flatMap { line in
                line.range(of: "\"match\":\"").map { String(line[$0.upperBound...].prefix { $0 != "\"" }) }
            })
            let hostHistory = await lab.run(host: "A", try Self.command(scratch.hostHome, ["replay", id, "--json"]))
            let guestHistory = await lab.run(host: "B", try Self.command(scratch.guestHome, ["replay", id, "--json"]))
            #expect(hostHistory.standardOutput.contains("\"event\":\"end\""))
            #expect(hostHistory.standardOutput == guestHistory.standardOutput, "the two saved histories differ")
        }
    }

    @Test func bothSidesKilledAndTheHostsOldPortTakenTheGuestFindsTheMatchByItsID() async throws {
        let scratch = Scratch()
        try await Lab.with(hosts: 2) { lab in
            let port = "7601"
            let host = try lab.start(host: "A", try Self.command(scratch.hostHome, [
                "host", "connect4", "--bot", "easy", "--json", "--port", port, "--seat", "first", "--name", "Ana",
            ]))
            try await host.waitForOutput(containing: "\"listening\"", timeout: 15)
            let guest = try lab.start(host: "B", try Self.guestCommand(scratch, [
                "join", "\(lab.address(of: "A")):\(port)", "--json", "--name", "Bo",
            ]))
            try await guest.waitForOutput(containing: "\"event\":\"turn\",\"seat\":1,\"sequence\":1", timeout: 15)
            scratch.type("1")
            try await guest.waitForOutput(containing: "\"event\":\"turn\",\"seat\":1,\"sequence\":3", timeout: 15)
            // Both processes die at once; something else takes the host's port meanwhile.
            host.send(SIGKILL)
            guest.send(SIGKILL)
            _ = await host.wait(timeout: 5)
            _ = await guest.wait(timeout: 5)
            let squatter = try lab.start(host: "A", ["python3", "-c", """
                import socket, time
                s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind(("0.0.0.0", \(port))); s.listen(5); print("squatting", flush=True); time.sleep(120)
                """])
            try await squatter.waitForOutput(containing: "squatting", timeout: 10)

            let hostResume = try lab.start(host: "A", try Self.command(scratch.hostHome, ["resume", "--bot", "easy", "--json"]))
            try await hostResume.waitForOutput(containing: "\"listening\"", timeout: 15)
            #expect(!hostResume.output().contains("\"port\":\(port)"), "the old port was taken; the host must move")
            let guestResume = try lab.start(host: "B", try Self.command(scratch.guestHome, ["resume", "--bot", "easy", "--json"]))
            #expect(await guestResume.wait(timeout: 60) == 0, "guest resume: \(guestResume.output())\(guestResume.errors())")
            #expect(await hostResume.wait(timeout: 30) == 0, "host resume: \(hostResume.output())\(hostResume.errors())")
            await squatter.stop()
            let joined = guestResume.output().split(separator: "\n").first { $0.contains("\"event\":\"joined\"") }.map(String.init) ?? ""
            #expect(joined.contains("\"resumed\":true") && !joined.contains(":\(port)\""), "found by id at its new port: \(joined)")
            let id = try #require(joined.range(of: "\"match\":\"").map { String(joined[$0.upperBound...].prefix { $0 != "\"" }) })
            let hostHistory = await lab.run(host: "A", try Self.command(scratch.hostHome, ["replay", id, "--json"]))
            let guestHistory = await lab.run(host: "B", try Self.command(scratch.guestHome, ["replay", id, "--json"]))
            #expect(hostHistory.standardOutput.contains("\"event\":\"end\""))
            #expect(hostHistory.standardOutput == guestHistory.standardOutput, "the two saved histories differ")
        }
    }
}
