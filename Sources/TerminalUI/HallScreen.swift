@preconcurrency import Glibc
import Foundation
import Match

/// The host's full-screen list of its tables (`parlor host --tables N` on a
/// terminal): one line per table with its players, moves, whose turn or the
/// result, redrawn as they change. q, Esc or Ctrl-C stops the host.
public final class HallScreen: Sendable {
    /// One table's line.
    public struct Row: Hashable, Sendable {
        public var table: Int
        public var players: String
        public var moves: Int
        /// "Bo to move", "Bo won", "draw", "away", …
        public var status: String
        public var matchID: String

        public init(table: Int, players: String, moves: Int, status: String, matchID: String) {
            self.table = table
            self.players = players
            self.moves = moves
            self.status = status
            self.matchID = matchID
        }
    }

    private let terminal: Terminal

    /// Takes over the terminal (raw keys, alternate screen) and calls `onQuit`
    /// from a reading thread when q, Esc, Ctrl-C or the end of input comes.
    /// Throws when stdin or stdout is not a terminal.
    public init(onQuit: @escaping @Sendable () -> Void) throws(TerminalError) {
        terminal = Terminal()
        try terminal.enterFullScreen()
        let input = terminal.inputFD
        Thread.detachNewThread {
            var byte: UInt8 = 0
            while true {
                let count = read(input, &byte, 1)
                if count < 0, errno == EINTR { continue }
                if count <= 0 || byte == UInt8(ascii: "q") || byte == 0x1B || byte == 0x03 || byte == 0x04 {
                    onQuit()
                    return
                }
            }
        }
    }

    /// Redraws the list: a title line, a heading, then as many tables as fit.
    public func show(title: String, rows: [Row]) {
        let size = terminal.size() ?? TerminalSize(columns: 80, rows: 24)
        let lines = Self.lines(title: title, rows: rows, columns: size.columns, height: size.rows)
        var text = "\u{1B}[H"
        for line in lines { text += line + "\u{1B}[K\r\n" }
        text += "\u{1B}[J"
        terminal.write(Array(text.utf8))
    }

    /// The screen's lines, each cut to `columns`, at most `height`. Pure, for tests.
    public static func lines(title: String, rows: [Row], columns: Int, height: Int) -> [String] {
        var lines = [title, "", pad("Table", 6) + pad("Match", 10) + pad("Players", 34) + pad("Moves", 7) + "State"]
        let room = max(0, height - lines.count - 1)
        for row in rows.prefix(room) {
            lines.append(pad(String(row.table), 6) + pad(String(row.matchID.prefix(8)), 10) + pad(row.players, 34)
                         + pad(String(row.moves), 7) + row.status)
        }
        if rows.count > room { lines.append("… and \(rows.count - room) more") }
        return lines.map { String($0.prefix(max(1, columns))) }
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        let cut = String(text.prefix(width - 1))
        return cut + String(repeating: " ", count: max(1, width - cut.count))
    }

    /// Gives the terminal back.
    public func close() { terminal.restore() }
}
