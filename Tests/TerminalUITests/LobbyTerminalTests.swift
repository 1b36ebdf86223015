import Foundation
import ParlorTestSupport
import Testing

/// The lobby as home (bare `parlor` on a terminal): an address typed to join,
/// the bot's level and the seat chosen for an offline match, and back in the
/// lobby after the match.
@Suite("The lobby in a real terminal (tmux)", .serialized)
struct LobbyTerminalTests {
    @Test("a typed address is joined from the lobby (a refused one reads as one sentence there); p, game, level and seat start a match; after it the lobby is back",
          .enabled(if: LeavingTerminalTests.canRun))
    func lobbyIsHome() async throws {
        let parlor = try #require(LeavingTerminalTests.parlor)
        let home = LeavingTerminalTests.home("lobby")
        defer { try? FileManager.default.removeItem(atPath: home.path) }
        let shell = "\"$0\" \"$@\"; echo \"exit status $?\"; sleep 60"
        let lobby = try TmuxSession.start(["sh", "-c", shell, parlor], columns: 100, rows: 30, environment: home.environment)
        defer { lobby.kill() }
        #expect(await lobby.waitFor("a type an address"), "\(lobby.screenText())")

        // An address where nothing listens: the lobby stays, and says why.
        lobby.send("a")
        #expect(await lobby.waitFor("Address (HOST:PORT"), "\(lobby.screenText())")
        lobby.send("127.0.0.1:1")
        lobby.send("Enter")
        #expect(await lobby.waitFor("Nothing is listening at 127.0.0.1:1", timeout: .seconds(15)), "\(lobby.screenText())")
        #expect(lobby.screenText().contains("parlor: games on the LAN"), "\(lobby.screenText())")

        // Play offline: Connect Four (1), the hard bot (h), the second seat (2).
        lobby.send("p")
        #expect(await lobby.waitFor("Which game?"), "\(lobby.screenText())")
        lobby.send("1")
        #expect(await lobby.waitFor("How strong?"), "\(lobby.screenText())")
        lobby.send("h")
        #expect(await lobby.waitFor("Which seat?"), "\(lobby.screenText())")
        lobby.send("2")
        #expect(await lobby.waitFor("Hard bot", timeout: .seconds(15)), "\(lobby.screenText())")
        #expect(await lobby.waitFor("Your turn", timeout: .seconds(30)), "\(lobby.screenText())")
        // The hard bot took the first seat and has moved: a piece is on the board before ours.
        #expect(lobby.screenText().contains("Hard bot") && lobby.screenText().contains("Ana (you)"), "\(lobby.screenText())")
        lobby.send("q")
        #expect(await lobby.waitFor("Quit this match? (y/n)"), "\(lobby.screenText())")
        lobby.send("y")
        #expect(await lobby.waitFor("Back in the lobby after the match.", timeout: .seconds(15)), "\(lobby.screenText())")
        lobby.send("q")
        #expect(await lobby.waitFor("exit status 0", timeout: .seconds(10)), "\(lobby.screenText())")
    }

    @Test("your interrupted match is listed apart in the lobby, highlighted, and r resumes it there; Esc on the list does not leave",
          .enabled(if: LeavingTerminalTests.canRun))
    func ownMatchResumes() async throws {
        let parlor = try #require(LeavingTerminalTests.parlor)
        let home = LeavingTerminalTests.home("lobby-mine")
        defer { try? FileManager.default.removeItem(atPath: home.path) }
        // End of input leaves an offline match for now: interrupted, ours to resume.
        _ = try ReplayTerminalTests.run(parlor, ["play", "tictactoe", "--vs", "bot:easy", "--plain"], environment: home.environment)
        let shell = "\"$0\" \"$@\"; echo \"exit status $?\"; sleep 60"
        let lobby = try TmuxSession.start(["sh", "-c", shell, parlor], columns: 100, rows: 30, environment: home.environment)
        defer { lobby.kill() }
        #expect(await lobby.waitFor("Your matches (Enter or r resumes):"), "\(lobby.screenText())")
        let row = try #require(lobby.screen().first { $0.contains("Tic-tac-toe vs Easy bot") }, "\(lobby.screenText())")
        #expect(row.hasPrefix("> ") && row.contains("interrupted") && row.contains("your turn"), "\(lobby.screenText())")
        #expect(lobby.screenText().contains("r resume"), "\(lobby.screenText())")
        // The chosen row is drawn in reverse video, not only marked with ">".
        let styled = try lobby.tmux(["capture-pane", "-p", "-e", "-t", lobby.name])
        #expect(styled.contains("\u{1B}[7m> Tic-tac-toe vs Easy bot"), "\(styled)")

        // Esc on the list does not leave: it says how.
        lobby.send("Escape")
        #expect(await lobby.waitFor("Press q to leave parlor."), "\(lobby.screenText())")
        #expect(!lobby.screenText().contains("exit status"), "\(lobby.screenText())")

        // r resumes it at the desk: the board, our turn.
        lobby.send("r")
        #expect(await lobby.waitFor("Your turn", timeout: .seconds(20)), "\(lobby.screenText())")
        #expect(lobby.screenText().contains("Easy bot"), "\(lobby.screenText())")
    }
}
