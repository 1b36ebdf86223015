import Foundation
import Testing

/// The `nim` executable as a user sees it: each test runs the built program
/// and reads what it prints.
@Suite(.timeLimit(.minutes(1))) struct CommandTests {
    @Test func aBotAgainstABotPlaysToAWinner() async throws {
        let (output, status) = try await NimProcess.run(["play", "--bot"], home: temporaryHome())
        #expect(status == 0)
        let movers = output.filter { $0.contains(" took ") }.map { $0.components(separatedBy: " took ")[0] }
        #expect(output.last { $0.contains(" took ") }?.hasSuffix("heaps 0 0 0") == true, "the last move empties the heaps: \(output)")
        #expect(zip(movers, movers.dropFirst()).allSatisfy { $0 != $1 }, "the bots alternate: \(output)")
        #expect(output.contains("Winner: \(movers.last ?? "?")"), "whoever took the last one wins: \(output)")
    }

    @Test func aPersonTypesMovesAndIsToldWhatIsNotAMove() async throws {
        let (output, status) = try await NimProcess.run(["play"], home: temporaryHome(), input: "1 4\nhello\n1 3\n")
        #expect(status == 0)
        #expect(output.first == "Heaps 3 4 5. Your move (heap and count, e.g. 2 3)?")
        #expect(output.filter { $0.hasPrefix("That is not a move here") }.count == 2)
        #expect(output.contains("You took 3 from heap 1: heaps 0 4 5"))
        // stdin ends on the person's next turn: they quit, and the bot wins.
        #expect(output.contains("No more moves on stdin: you quit."))
        #expect(output.contains("Winner: Bot 2"))
    }

    /// `nim host --port 0 --bot` and `nim join … --bot` on 127.0.0.1, both with `extra` arguments (the variant), both to
    /// their end: what each printed, their exit statuses and the guest's `$NIM_HOME`.
    static func hostAndJoin(_ extra: [String] = []) async throws
        -> (hostOutput: [String], guestOutput: [String], hostStatus: Int32?, guestStatus: Int32?, guestHome: URL) {
        let host = try NimProcess(["host", "--port", "0", "--bot"] + extra, home: temporaryHome())
        defer { host.stop() }
        var hostLines = host.lines.makeAsyncIterator()
        var hostOutput: [String] = []
        while hostOutput.last?.hasPrefix("Hosting Nim on port") != true, let line = await hostLines.next() {
            hostOutput.append(line)
        }
        let port = try #require(hostOutput.last?.split(separator: " ")[4].dropLast())
        let guestHome = try temporaryHome()
        let (guestOutput, guestStatus) = try await NimProcess.run(["join", "127.0.0.1:\(port)", "--bot"] + extra, home: guestHome)
        while let line = await hostLines.next() { hostOutput.append(line) }
        return (hostOutput, guestOutput, await host.exitStatus(), guestStatus, guestHome)
    }

    @Test func twoProcessesPlayOnTheLANToTheSameEnd() async throws {
        let (hostOutput, guestOutput, hostStatus, guestStatus, _) = try await Self.hostAndJoin()
        #expect(guestStatus == 0)
        #expect(hostStatus == 0)
        // Each side proved its key to the other (protocol 3), and names the other's.
        let hostKey = hostOutput[0].split(separator: " ").last.map(String.init)
        #expect(guestOutput.first == "Joined Host, key \(hostKey ?? "?")")
        #expect(hostOutput.contains { $0.hasPrefix("Guest joined, key ") && !$0.hasSuffix("none") })
        // Both saw the same moves and end in the same state.
        let ending = { (output: [String]) in output.filter { $0.contains(" took ") || $0.hasPrefix("Winner:") || $0.hasPrefix("State hash:") } }
        #expect(ending(hostOutput) == ending(guestOutput))
        #expect(ending(guestOutput).contains { $0 == "Winner: Host" || $0 == "Winner: Guest" })
        #expect(guestOutput.contains { $0.hasPrefix("State hash: ") })
    }

    @Test func withRandomHeapsBothProcessesDealTheHostsHeapsAndTheReplayStartsFromThem() async throws {
        let (hostOutput, guestOutput, hostStatus, guestStatus, guestHome) = try await Self.hostAndJoin(["--random-heaps"])
        #expect(guestStatus == 0)
        #expect(hostStatus == 0)
        let dealt = try #require(hostOutput.first { $0.hasPrefix("Random heaps: ") })
        #expect(guestOutput.first { $0.hasPrefix("Random heaps: ") } == dealt, "the guest starts from the host's heaps")
        let ending = { (output: [String]) in output.filter { $0.contains(" took ") || $0.hasPrefix("State hash:") } }
        #expect(!ending(hostOutput).isEmpty && ending(hostOutput) == ending(guestOutput))
        // The guest's saved match replays from the same heaps.
        let id = try #require(guestOutput.last?.split(separator: " ").last.map(String.init))
        let (replayed, status) = try await NimProcess.run(["replay", id], home: guestHome)
        #expect(status == 0)
        #expect(replayed.first == "Start: heaps " + dealt.dropFirst("Random heaps: ".count))
        #expect(Array(replayed.dropFirst().dropLast()) == guestOutput.filter { $0.contains(" took ") })
    }

    @Test func aSavedMatchReplaysByIDAndByFile() async throws {
        let home = try temporaryHome()
        let (played, _) = try await NimProcess.run(["play", "--bot"], home: home)
        let id = try #require(played.last?.split(separator: " ").last.map(String.init))
        let file = try #require(FileManager.default.contentsOfDirectory(atPath: home.path + "/matches").first { $0.hasSuffix(".match") })

        for what in [id, home.path + "/matches/" + file] {
            let (replayed, status) = try await NimProcess.run(["replay", what], home: home)
            #expect(status == 0)
            #expect(replayed.first == "Start: heaps 3 4 5")
            // The same moves and winner as the match printed while it was played.
            #expect(Array(replayed.dropFirst()) == played.filter { $0.contains(" took ") || $0.hasPrefix("Winner:") })
        }
    }

    @Test func aMistypedCommandSaysSoAndExits64() async throws {
        let (output, status) = try await NimProcess.run(["jion", "somewhere"], home: temporaryHome())
        #expect(status == 64)
        #expect(output.first == "Error: nim does not understand 'jion somewhere'")
        #expect(output.contains { $0.contains("nim join HOST:PORT [--bot]") })
    }
}
