import Foundation
import ParlorTestSupport
import Testing

/// `parlor host --code` and `parlor join --code` as two real processes over loopback.
@Suite("Passcodes between two parlor processes", .serialized)
struct PasscodeEndToEndTests {
    @Test("host --code makes up a code; a wrong code exits 1 (a second one only after a delay) and the host's --json tells of each; none exits 64; the right one plays the match")
    func codedMatchOverLoopback() async throws {
        let port = freePort()
        let host = try SpawnedParlor(["host", "connect4", "--code", "--bot", "medium", "--json", "--port", "\(port)"],
                                     environment: scratchDataHome())
        let listening = try #require(await host.line(containing: "\"listening\""), "\(host.transcript)")
        let event = try #require(jsonEvents(listening).first)
        let code = try #require(event["passcode"] as? String, "\(listening)")
        #expect(code.range(of: "^[2-9A-HJKMNP-Z]{3}-[2-9A-HJKMNP-Z]{3}$", options: .regularExpression) != nil, "code \(code)")
        let joinLines = (event["join"] as? [String]) ?? []
        #expect(!joinLines.isEmpty && joinLines.allSatisfy { $0.hasSuffix("--code \(code)") }, "\(joinLines)")

        let target = "127.0.0.1:\(port)"
        var wrongTook: [Duration] = []
        for _ in 0..<2 {
            let started = ContinuousClock.now
            let wrong = try await ParlorProcess.run(["join", target, "--code", "WRONG-1", "--bot", "easy", "--json"],
                                                    environment: scratchDataHome(), timeout: .seconds(30))
            wrongTook.append(ContinuousClock.now - started)
            #expect(wrong.status == 1, "\(wrong.stderr)")
            #expect(wrong.stderr.contains("the host refused the passcode;"), "\(wrong.stderr)")
            #expect(!wrong.stderr.contains("passcodeWrong"), "an internal name was shown: \(wrong.stderr)")
        }
        // The first wrong try from an address is answered at once; the next waits 1 s.
        #expect(wrongTook[1] >= .milliseconds(950), "the second wrong code was refused after only \(wrongTook[1])")
        func notices() -> [[String: Any]] { jsonEvents(host.output).filter { $0["event"] as? String == "wrongPasscode" } }
        for _ in 0..<40 where notices().count < 2 { try await Task.sleep(for: .milliseconds(50)) }
        let notices = notices()
        #expect(notices.count == 2 && notices.allSatisfy { $0["from"] as? String == "127.0.0.1" }, "\(host.transcript)")

        let missing = try await ParlorProcess.run(["join", target, "--bot", "easy", "--json"],
                                                  environment: scratchDataHome(), timeout: .seconds(30))
        #expect(missing.status == 64, "\(missing.stderr)")
        #expect(missing.stderr.contains("needs a passcode") && missing.stderr.contains("--code"), "\(missing.stderr)")

        let typed = code.lowercased().replacingOccurrences(of: "-", with: "")
        let guest = try await ParlorProcess.run(["join", target, "--code", typed, "--bot", "medium", "--json"],
                                                environment: scratchDataHome(), timeout: .seconds(120))
        #expect(guest.status == 0, "guest: \(guest.stderr)")
        let hostStatus = await host.wait(timeout: .seconds(60))
        #expect(hostStatus == 0, "\(host.transcript)")
        let hostEnd = try #require(jsonEvents(host.output).last), guestEnd = try #require(jsonEvents(guest.stdout).last)
        #expect(hostEnd["event"] as? String == "end" && guestEnd["event"] as? String == "end")
        #expect(hostEnd["hash"] as? String == guestEnd["hash"] as? String)
        print("passcode e2e: wrong codes refused after \(wrongTook)")
    }

    @Test("host --code=CODE admits a guest with that code and an open host ignores a guest's code")
    func givenCodeAndOpenHost() async throws {
        let port = freePort()
        let host = try SpawnedParlor(["host", "tictactoe", "--code=ab12-cd", "--bot", "easy", "--json", "--port", "\(port)"],
                                     environment: scratchDataHome())
        _ = await host.line(containing: "\"listening\"")
        let guest = try await ParlorProcess.run(["join", "127.0.0.1:\(port)", "--code", "AB12CD", "--bot", "easy", "--json"],
                                                environment: scratchDataHome(), timeout: .seconds(60))
        #expect(guest.status == 0, "\(guest.stderr)")
        #expect(await host.wait(timeout: .seconds(30)) == 0, "\(host.transcript)")

        let openPort = freePort()
        let open = try SpawnedParlor(["host", "tictactoe", "--bot", "easy", "--json", "--port", "\(openPort)"],
                                     environment: scratchDataHome())
        let listening = try #require(await open.line(containing: "\"listening\""))
        #expect(!listening.contains("--code"))
        let openGuest = try await ParlorProcess.run(["join", "127.0.0.1:\(openPort)", "--code", "spare-code", "--bot", "easy", "--json"],
                                                    environment: scratchDataHome(), timeout: .seconds(60))
        #expect(openGuest.status == 0, "\(openGuest.stderr)")
        #expect(await open.wait(timeout: .seconds(30)) == 0, "\(open.transcript)")
    }

    @Test("join on a terminal asks for the code, naming the game at the address, without echoing it, then plays")
    func promptOnATerminal() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
            Issue.record("script(1) is missing (Debian package bsdutils)")
            return
        }
        let port = freePort()
        let host = try SpawnedParlor(["host", "connect4", "--code=ab12-cd", "--bot", "easy", "--json", "--port", "\(port)"],
                                     environment: scratchDataHome())
        _ = await host.line(containing: "\"listening\"")
        // script(1) gives the guest a terminal; the code is typed a moment after it starts.
        // script(1) reports its child's status unreliably, so the child prints it; script ends
        // when its input does, so the typist stays 10 s, long enough for the easy bots' match.
        func typed(_ code: String) async throws -> (status: Int?, stdout: String) {
            let join = "\(ParlorBinary.url.path) join 127.0.0.1:\(port) --bot easy --plain; echo parlor-exit=$?"
            let result = try await ParlorProcess.run(
                ["-c", "script -qfc '\(join)' /dev/null < <({ sleep 1; printf '\(code)\\r'; sleep 10; } 2>/dev/null)"],
                environment: scratchDataHome(), timeout: .seconds(90), executable: URL(fileURLWithPath: "/bin/bash"))
            let status = result.stdout.components(separatedBy: "parlor-exit=").last
                .flatMap { Int($0.prefix { $0.isNumber }) }
            return (status, result.stdout)
        }
        // Three tries, and what the host shows of each: PasscodeTerminalTests (tmux).
        let right = try await typed("AB12CD")
        #expect(right.stdout.contains("Passcode for the game at 127.0.0.1:\(port):"), "\(right.stdout)")
        #expect(right.status == 0, "\(right.stdout)")
        #expect(!right.stdout.contains("AB12CD"), "the typed code was echoed")
        #expect(right.stdout.contains("Joined"), "\(right.stdout)")
        #expect(await host.wait(timeout: .seconds(30)) == 0, "\(host.transcript)")
    }
}
