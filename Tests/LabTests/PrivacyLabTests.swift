import Foundation
import ParlorTestSupport
import Testing
@preconcurrency import Glibc

extension LabSuite {
    /// Issue 38, item 8: what a listener on the LAN sees of a whole match, a
    /// spectator's line of talk, a host killed mid-match and the match resumed, joined by name through real
    /// avahi-daemons: a packet socket on host A's eth0 (scripts/lab-capture)
    /// records every TCP payload of the game's port, and none of it is a name,
    /// the game, a match blob or a clear parlor frame.
    @Suite(.enabled(if: LabAvailability.isAvailable, LabAvailability.skipComment))
    struct PrivacyOnTheLAN {
        static func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
            let needle = Array(needle.utf8)
            guard !needle.isEmpty, needle.count <= haystack.count else { return false }
            for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
                if Array(haystack[start..<(start + needle.count)]) == needle { return true }
            }
            return false
        }

        @Test func aCapturedMatchWithAResumeShowsNothingInClear() async throws {
            try await Lab.with(hosts: 3) { lab in
                let capturePath = NSTemporaryDirectory() + "parlor-capture-\(getpid())-\(UUID().uuidString)"
                defer {
                    let directory = (capturePath as NSString).deletingLastPathComponent
                    let name = (capturePath as NSString).lastPathComponent
                    for file in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where file.hasPrefix(name) {
                        try? FileManager.default.removeItem(atPath: directory + "/" + file)
                    }
                }
                let script = ParlorBinary.packageRoot.appendingPathComponent("scripts/lab-capture").path
                let capture = try lab.start(host: "A", [script, capturePath, "7477", "240"])
                try await capture.waitForOutput(containing: "capturing", timeout: 10)

                // The host plays second from a FIFO nobody writes to, so the match waits at its turn after the guest's
                // first move, and the spectator's line and the kill both come mid-match.
                let hostInput = capturePath + "-host"
                #expect(mkfifo(hostInput, 0o600) == 0)
                let idle = open(hostInput, O_RDWR)
                defer { close(idle) }
                let hostData = try DataDirectory()
                let host = try lab.start(host: "A", ["sh", "-c", "exec \"$@\" < \(hostInput)", "sh"] + ParlorCommand.command(
                    ["host", "connect4", "--seat", "second", "--json", "--port", "7477", "--name", "Zanzibarina", "--grace", "90"], data: hostData))
                try await host.waitForOutput(containing: "\"event\":\"listening\"", timeout: 20)
                // A spectator on host C, there before the match, says a line to the table once it is under way; the
                // host hears it (talk crosses the LAN too). Its input is a FIFO, so the line comes when the test writes it.
                let fifo = capturePath + "-say"
                #expect(mkfifo(fifo, 0o600) == 0)
                let sayer = open(fifo, O_RDWR)
                defer { close(sayer) }
                let watcher = try lab.start(host: "C", ["sh", "-c", "exec \"$@\" < \(fifo)", "sh"] + ParlorCommand.command(
                    ["watch", "Zanzibarina's Connect Four", "--json", "--name", "Onlooker"], data: try DataDirectory()))
                try await watcher.waitForOutput(containing: "\"event\":\"watching\"", timeout: 20)
                let guest = try lab.start(host: "B", ParlorCommand.command(
                    ["join", "Zanzibarina's Connect Four", "--bot", "medium", "--json", "--name", "Quixotical", "--grace", "90"],
                    data: try DataDirectory()))
                try await host.waitForOutput(containing: "\"event\":\"move\"", timeout: 60)
                try await watcher.waitForOutput(containing: "\"event\":\"move\"", timeout: 20)
                _ = "/say Marzipanolo\n".withCString { write(sayer, $0, strlen($0)) }
                do { try await host.waitForOutput(containing: "Marzipanolo", timeout: 20) } catch {
                    Issue.record("the spectator's line did not reach the host: \(watcher.output()) \(watcher.errors())")
                    throw error
                }
                // The host dies mid-match; parlor resume brings it back and the guest finds it again.
                host.send(SIGKILL)
                _ = await host.wait(timeout: 10)
                let resumed = try lab.start(host: "A", ParlorCommand.command(["resume", "--bot", "medium", "--json", "--grace", "90"],
                                                                               data: hostData))
                #expect(await guest.wait(timeout: 180) == 0, "join stderr: \(guest.errors())")
                #expect(await resumed.wait(timeout: 30) == 0, "resume stderr: \(resumed.errors())")
                #expect(JSONLines.events("joined", in: resumed.output()).contains { $0["resumed"] as? Bool == true },
                        "the guest came back: \(resumed.output())")
                watcher.send(SIGTERM)
                _ = await watcher.wait(timeout: 10)
                capture.send(SIGTERM)
                _ = await capture.wait(timeout: 10)

                let wire = [UInt8](FileManager.default.contents(atPath: capturePath) ?? Data())
                #expect(wire.count > 2_000, "the capture saw the match: \(wire.count) bytes")
                #expect(Self.contains(wire, "PN"), "protocol 3 records crossed the wire")
                for secret in ["Zanzibarina", "Quixotical", "connect4", "Onlooker", "Marzipanolo"] {
                    #expect(!Self.contains(wire, secret), "\(secret) crossed the LAN in clear")
                }
                // Each direction of each connection (the first and the resumed one) is only
                // handshake and sealed records: no clear parlor frame. (Short needles such as
                // "PL\u{01}" are not searched for: sealed bytes hold any three bytes now and then.)
                let directory = (capturePath as NSString).deletingLastPathComponent
                let name = (capturePath as NSString).lastPathComponent + "."
                let flows = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasPrefix(name) }
                #expect(flows.count >= 6, "three connections (guest, spectator, guest again), both directions: \(flows)")
                var sealedDirections = 0
                for flow in flows {
                    let stream = [UInt8](FileManager.default.contents(atPath: directory + "/" + flow) ?? Data())
                    let types = ChannelRecords.types(stream)
                    // A dial that lost the race to another address may stop after the first handshake record.
                    #expect(types?.allSatisfy { $0 == 1 || $0 == 2 } == true,
                            "\(flow): \(stream.count) bytes, records \(String(describing: types))")
                    if ChannelRecords.isSealedConversation(stream) { sealedDirections += 1 }
                }
                #expect(sealedDirections >= 6, "the match, the spectator and the resumption travelled sealed, both ways")
            }
        }
            /// Issue 38, items 3 and 8: a host impostor on the LAN advertises the same match id (a copy of the host's
        /// saved match, a key of its own). The guest resuming by match id, through real avahi-daemons, refuses it in
        /// the handshake: the impostor never seats it and never reads its seat token. The real host then resumes and
        /// the guest comes back to it.
        @Test func aResumingGuestRefusesAnImpostorAdvertisingItsMatch() async throws {
            try await Lab.with(hosts: 3) { lab in
                let hostData = try DataDirectory()
                let guestData = try DataDirectory()
                // Ana plays second from a FIFO nobody writes to, so the match waits at her turn after Bo's first move
                // and the kill comes mid-match (two bots finish a match in less time than a poll of the output).
                let hostInput = hostData.path + "/input"
                #expect(mkfifo(hostInput, 0o600) == 0)
                let idle = open(hostInput, O_RDWR)
                defer { close(idle) }
                let host = try lab.start(host: "A", ["sh", "-c", "exec \"$@\" < \(hostInput)", "sh"] + ParlorCommand.command(
                    ["host", "connect4", "--seat", "second", "--json", "--port", "7477", "--name", "Ana", "--grace", "30"], data: hostData))
                try await host.waitForOutput(containing: "\"event\":\"listening\"", timeout: 20)
                let guest = try lab.start(host: "B", ParlorCommand.command(
                    ["join", "Ana's Connect Four", "--bot", "medium", "--json", "--name", "Bo", "--grace", "30"], data: guestData))
                try await host.waitForOutput(containing: "\"event\":\"move\"", timeout: 60)
                try await guest.waitForOutput(containing: "\"event\":\"move\"", timeout: 20)
                host.send(SIGKILL)
                guest.send(SIGKILL)
                _ = await host.wait(timeout: 10)
                _ = await guest.wait(timeout: 10)

                // Mallory on C has a copy of Ana's saved match, but not Ana's key.
                let impostorData = try DataDirectory()
                try FileManager.default.createDirectory(atPath: impostorData.path + "/parlor", withIntermediateDirectories: true)
                try FileManager.default.copyItem(atPath: hostData.path + "/parlor/matches", toPath: impostorData.path + "/parlor/matches")
                let impostor = try lab.start(host: "C", ParlorCommand.command(["resume", "--bot", "medium", "--json", "--grace", "60"],
                                                                                data: impostorData))
                try await impostor.waitForOutput(containing: "\"event\":\"listening\"", timeout: 20)
                let refused = try await lab.run(host: "B", ParlorCommand.command(["resume", "--bot", "medium", "--json", "--grace", "8"],
                                                                               data: guestData), timeout: 60)
                #expect(refused.status != 0, "the guest did not play the impostor: \(refused.standardOutput)")
                #expect(refused.standardError.contains("refusing the host: this is not the Ana this match was played with")
                            && !refused.standardError.contains("the host closed the connection"), "\(refused.standardError)")
                #expect(JSONLines.events("joined", in: impostor.output()).isEmpty, "the impostor seated nobody: \(impostor.output())")
                impostor.send(SIGKILL)
                _ = await impostor.wait(timeout: 10)

                // Ana herself resumes on A; Bo's parlor comes back to her and the match ends.
                let resumed = try lab.start(host: "A", ParlorCommand.command(["resume", "--bot", "medium", "--json", "--grace", "60"],
                                                                               data: hostData))
                try await resumed.waitForOutput(containing: "\"event\":\"listening\"", timeout: 20)
                let back = try await lab.run(host: "B", ParlorCommand.command(["resume", "--bot", "medium", "--json", "--grace", "30"],
                                                                            data: guestData), timeout: 120)
                #expect(back.status == 0, "the guest came back to the real host: \(back.standardError)")
                #expect(await resumed.wait(timeout: 30) == 0, "resume stderr: \(resumed.errors())")
            }
        }
    }
}
