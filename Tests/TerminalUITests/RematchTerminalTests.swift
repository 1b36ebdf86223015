import Foundation
import ParlorTestSupport
import Testing

/// Issue 15, "a rematch is one key": y or n on the final board without
/// Enter, each side sees the other's answer as it comes, nobody is asked
/// after quitting, and a bot match ends with "Play again?". Two real parlors
/// in two real terminals (tmux).
@Suite("Rematch in a real terminal (tmux)", .serialized)
struct RematchTerminalTests {
    static let question = "Rematch with seats swapped? y: yes   n: no"

    /// A host (Ana, X, first) and a guest (Bo) in two terminals, at Ana's first turn of tictactoe.
    struct Pair {
        let host: TmuxSession
        let guest: TmuxSession
        let homes: [String]

        static func start() async throws -> Pair {
            let parlor = try #require(LeavingTerminalTests.parlor)
            let hostHome = LeavingTerminalTests.home("rematch-host"), guestHome = LeavingTerminalTests.home("rematch-guest")
            let port = freePort()
            let shell = "\"$0\" \"$@\"; echo \"exit status $?\"; sleep 60"
            let host = try TmuxSession.start(["sh", "-c", shell, parlor, "host", "tictactoe", "--port", "\(port)", "--name", "Ana",
                                              "--seat", "first"], environment: hostHome.environment)
            #expect(await host.waitFor("Waiting for a player"), "\(host.screenText())")
            let guest = try TmuxSession.start(["sh", "-c", shell, parlor, "join", "127.0.0.1:\(port)", "--name", "Bo"],
                                              environment: guestHome.environment)
            #expect(await host.waitFor("Your turn"), "\(host.screenText())")
            return Pair(host: host, guest: guest, homes: [hostHome.path, guestHome.path])
        }

        /// Ana wins: 1, 4, 2, 5, 3 (the guest waits for its turn each time).
        func playToAnaWinning() async {
            for (side, cell) in [(host, "1"), (guest, "4"), (host, "2"), (guest, "5"), (host, "3")] {
                #expect(await side.waitFor("Your turn"), "\(side.screenText())")
                side.send(cell, "Enter")
                _ = await side.waitUntil { !$0.joined(separator: "\n").contains("Your turn") }
            }
        }

        /// Ana wins, both are asked, Ana says yes first: Bo reads her offer as it comes.
        func anaOffersFirst() async {
            await playToAnaWinning()
            #expect(await host.waitFor(RematchTerminalTests.question), "\(host.screenText())")
            #expect(await guest.waitFor(RematchTerminalTests.question), "\(guest.screenText())")
            host.send("y")
            #expect(await host.waitFor("Waiting for Bo's answer"), "\(host.screenText())")
            #expect(await guest.waitFor("Ana offers a rematch with seats swapped."), "\(guest.screenText())")
        }

        func stop() {
            host.kill()
            guest.kill()
            for path in homes { try? FileManager.default.removeItem(atPath: path) }
        }
    }

    @Test("y without Enter on both sides: the second side sees the first side's offer as it comes, then the seats swap",
          .enabled(if: LeavingTerminalTests.canRun))
    func bothSayYes() async throws {
        let pair = try await Pair.start()
        defer { pair.stop() }
        await pair.anaOffersFirst()
        #expect(pair.guest.screenText().contains(Self.question), "the guest's question went away: \(pair.guest.screenText())")
        pair.guest.send("y")
        // Seats swapped: Bo moves first now.
        #expect(await pair.guest.waitFor("Your turn"), "\(pair.guest.screenText())")
        #expect(pair.guest.screen().contains { $0.contains("X Bo (you)") }, "\(pair.guest.screenText())")
        #expect(await pair.host.waitFor("Bo is thinking"), "\(pair.host.screenText())")
    }

    @Test("n without Enter: the other side reads the no at once and is not asked any more",
          .enabled(if: LeavingTerminalTests.canRun))
    func guestSaysNo() async throws {
        let pair = try await Pair.start()
        defer { pair.stop() }
        await pair.playToAnaWinning()
        #expect(await pair.host.waitFor(Self.question), "\(pair.host.screenText())")
        #expect(await pair.guest.waitFor(Self.question), "\(pair.guest.screenText())")
        pair.guest.send("n")
        #expect(await pair.guest.waitFor("exit status 0"), "\(pair.guest.screenText())")
        #expect(!pair.guest.screenText().contains("(y/n)"), "\(pair.guest.screenText())")
        // Ana pressed nothing: her final board says so, and her question is gone.
        #expect(await pair.host.waitFor("Bo does not want a rematch."), "\(pair.host.screenText())")
        #expect(await pair.host.waitFor("Press any key to leave."), "\(pair.host.screenText())")
        #expect(!pair.host.screenText().contains(Self.question), "\(pair.host.screenText())")
        pair.host.send("x")
        #expect(await pair.host.waitFor("exit status 0"), "\(pair.host.screenText())")
        #expect(!pair.host.screenText().contains("(y/n)"), "asked again after leaving: \(pair.host.screenText())")
    }

    @Test("nobody is asked after quitting; the other side reads the no",
          .enabled(if: LeavingTerminalTests.canRun))
    func noQuestionAfterQuitting() async throws {
        let pair = try await Pair.start()
        defer { pair.stop() }
        pair.host.send("5", "Enter")
        #expect(await pair.guest.waitFor("Your turn"), "\(pair.guest.screenText())")
        pair.guest.send("q")
        #expect(await pair.guest.waitFor("Quit this match? (y/n)"), "\(pair.guest.screenText())")
        pair.guest.send("y")
        #expect(await pair.guest.waitFor("exit status 0"), "\(pair.guest.screenText())")
        #expect(!pair.guest.screenText().contains("Rematch"), "the player who quit was asked: \(pair.guest.screenText())")
        #expect(await pair.host.waitFor("Bo does not want a rematch."), "\(pair.host.screenText())")
        #expect(!pair.host.screenText().contains(Self.question), "\(pair.host.screenText())")
    }

    @Test("a bot match ends with Play again? (y/n): y starts a new match at once",
          .enabled(if: LeavingTerminalTests.canRun))
    func playAgainAfterABotMatch() async throws {
        let parlor = try #require(LeavingTerminalTests.parlor)
        let home = LeavingTerminalTests.home("again")
        defer { try? FileManager.default.removeItem(atPath: home.path) }
        let tmux = try TmuxSession.start(["sh", "-c", "\"$0\" play tictactoe --vs bot:easy --seat first; echo \"exit status $?\"; sleep 60",
                                          parlor], environment: home.environment)
        defer { tmux.kill() }
        let first = try #require(EndingTerminalTests.matchID(await tmux.waitFor("Your turn") ? tmux.screenText() : ""))
        // Cells in order until the game is over (taken cells are refused and skipped).
        for cell in 1...9 where !tmux.screenText().contains("Play again?") {
            _ = await tmux.waitUntil(timeout: .seconds(5)) { $0.joined().contains("Your turn") || $0.joined().contains("Play again?") }
            tmux.send("\(cell)", "Enter")
            try await Task.sleep(for: .milliseconds(300))
        }
        #expect(await tmux.waitFor("Play again? y: yes   n: no"), "\(tmux.screenText())")
        tmux.send("y")
        #expect(await tmux.waitUntil { screen in
            EndingTerminalTests.matchID(screen.joined(separator: "\n")).map { $0 != first } ?? false
        }, "\(tmux.screenText())")
        #expect(await tmux.waitFor("Your turn"), "\(tmux.screenText())")
        tmux.send("q")
        #expect(await tmux.waitFor("Quit this match? (y/n)"))
        tmux.send("y")
        #expect(await tmux.waitFor("exit status 0"), "\(tmux.screenText())")
        #expect(!tmux.screenText().contains("Play again?"), "asked after quitting: \(tmux.screenText())")
    }

    @Test("the player who offers a rematch stays on the full screen, on the final board, until the other side answers",
          .enabled(if: LeavingTerminalTests.canRun))
    func offerWaitsOnTheBoard() async throws {
        let pair = try await Pair.start()
        defer { pair.stop() }
        await pair.anaOffersFirst()
        // Still the full screen: the final board with its keys, not the plain lines left after it.
        let waiting = pair.host.screenText()
        #expect(waiting.contains("Ctrl-C: stop waiting and leave") && waiting.contains("match "), "\(waiting)")
        #expect(!waiting.contains("Result:"), "dropped to the plain screen: \(waiting)")
        pair.guest.send("n")
        #expect(await pair.host.waitFor("Bo does not want a rematch."), "\(pair.host.screenText())")
        #expect(await pair.host.waitFor("exit status 0"), "\(pair.host.screenText())")
        #expect(pair.host.screenText().contains("Result:"), "the result stays on the normal screen: \(pair.host.screenText())")
    }
}
