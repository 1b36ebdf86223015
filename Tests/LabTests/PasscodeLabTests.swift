import Foundation
import ParlorTestSupport
import Testing
@preconcurrency import Glibc

/// `parlor host --code` on the lab LAN: browse on B shows that a code is
/// needed, and `join NAME` on B gets in only with the code.
extension LabSuite {
    @Suite(.enabled(if: LabAvailability.isAvailable, LabAvailability.skipComment))
    struct PasscodeOnTheLAN {
        static let gameName = "Ana's Connect Four"

        @Test func browseOnBShowsTheCodeAndJoinByNameNeedsIt() async throws {
            try await Lab.with { lab in
                let hostData = try DataDirectory()
                let host = try lab.start(
                    host: "A",
                    ParlorCommand.command(
                        ["host", "connect4", "--code=K7M-Q4P", "--bot", "medium", "--json", "--port", "7477", "--name", "Ana"],
                        data: hostData))
                try await host.waitForOutput(containing: "\"event\":\"listening\"", timeout: 20)
                let listening = try #require(JSONLines.events("listening", in: host.output()).first)
                #expect(listening["passcode"] as? String == "K7M-Q4P", "host stderr: \(host.errors())")

                let guestData = try DataDirectory()
                let browse = try await lab.poll(
                    host: "B", ParlorCommand.command(["browse", "--json", "--timeout", "3"], data: guestData), timeout: 20
                ) { output in
                    JSONLines.objects(output.standardOutput).contains { $0["name"] as? String == Self.gameName }
                }
                let found = try #require(JSONLines.objects(browse.standardOutput).first { $0["name"] as? String == Self.gameName })
                #expect(found["passcode"] as? Bool == true)
                #expect((found["txt"] as? [String: Any])?["code"] as? String == "1")
                #expect(found["joinable"] as? Bool == true)
                let text = await lab.run(host: "B", try ParlorCommand.command(["browse", "--timeout", "2"], data: guestData))
                let row = text.standardOutput.split(separator: "\n").first { $0.hasPrefix(Self.gameName) }
                #expect(row?.contains("open, code needed") == true, "browse printed: \(text.standardOutput)")

                // No code and no terminal to ask on: a usage error that says what to do.
                let missing = await lab.run(
                    host: "B", try ParlorCommand.command(["join", Self.gameName, "--bot", "easy", "--json"], data: guestData),
                    timeout: 60)
                #expect(missing.status == 64, "stderr: \(missing.standardError)")
                #expect(missing.standardError.contains("--code"), "stderr: \(missing.standardError)")

                // A wrong code: refused (at once, the first from an address), exit 1.
                let started = Date()
                let wrong = await lab.run(
                    host: "B",
                    try ParlorCommand.command(["join", Self.gameName, "--code", "AAAA-BB", "--bot", "easy", "--json"], data: guestData),
                    timeout: 60)
                let wrongTook = Date().timeIntervalSince(started)
                #expect(wrong.status == 1, "stderr: \(wrong.standardError)")
                #expect(wrong.standardError.contains("refused the passcode"), "stderr: \(wrong.standardError)")

                // The right code, typed differently: the whole match, both sides agreeing.
                let join = await lab.run(
                    host: "B",
                    try ParlorCommand.command(["join", Self.gameName, "--code", "k7mq4p", "--bot", "medium", "--json"], data: guestData),
                    timeout: 180)
                #expect(join.status == 0, "join stderr: \(join.standardError)")
                let guestEnd = try #require(JSONLines.events("end", in: join.standardOutput).last)
                #expect(await host.wait(timeout: 30) == 0, "host stderr: \(host.errors())")
                let hostEnd = try #require(JSONLines.events("end", in: host.output()).last)
                #expect(guestEnd["hash"] as? String == hostEnd["hash"] as? String)
                print("lab: passcode join by name played to the end; a wrong code was refused after \(Int(wrongTook * 1000)) ms")
            }
        }
    }
}
