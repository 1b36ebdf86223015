import Bots
import Dispatch
import Foundation
import Games

/// Runs `parlor analyze`: solves the position after `moves` and prints the result.
func runAnalyze(_ options: AnalyzeOptions) async throws -> ExitCode {
    guard options.game == Connect4.id else {
        throw CommandFailure("only connect4 can be analysed, not \(options.game): its bots search, they do not solve.", exitCode: .usage)
    }
    let position = try PositionAnalysis.position(options.moves)
    if PositionAnalysis.needsLongSearch(position) {
        Console.writeError("Solving a position this early can take minutes or more; Ctrl-C stops.\n")
    }
    let report = await withCheckedContinuation { continuation in
        // Pure CPU, possibly for long: keep it off Swift's cooperative pool.
        DispatchQueue.global().async {
            continuation.resume(returning: PositionAnalysis.report(position, moves: options.moves, json: options.json))
        }
    }
    Console.write(report)
    return .success
}

/// What `parlor analyze connect4` reads and prints, as pure functions for tests.
enum PositionAnalysis {
    /// The position after `moves` (columns 1-7, one digit each), or a
    /// failure naming the first bad move and why.
    static func position(_ moves: String) throws(CommandFailure) -> Connect4 {
        var game = Connect4()
        for (index, character) in moves.enumerated() {
            let number = index + 1
            guard let column = character.wholeNumberValue, (1...7).contains(column), character.isASCII else {
                throw CommandFailure("move \(number) of '\(moves)' is '\(character)', not a column 1-7.", exitCode: .usage)
            }
            if game.isOver {
                throw CommandFailure("move \(number) of '\(moves)' follows the end of the game (it ended after move \(index)).", exitCode: .usage)
            }
            guard (try? game.apply(Move(column - 1))) != nil else {
                throw CommandFailure("move \(number) of '\(moves)' is column \(column), which is full.", exitCode: .usage)
            }
        }
        if game.isOver {
            throw CommandFailure("the game is over after '\(moves)': nothing to analyse.", exitCode: .usage)
        }
        return game
    }

    /// Whether solving `position` may take minutes: early in the game, and
    /// not answered by the shipped book.
    static func needsLongSearch(_ position: Connect4) -> Bool {
        position.moveCount < 8 && !(Connect4Book.shipped?.scoresEveryMove(of: position) ?? false)
    }

    /// What `parlor analyze connect4 MOVES` prints for `position` (reached
    /// by `moves`, which must not be over): text or one JSON line.
    static func report(_ position: Connect4, moves: String, json: Bool) -> String {
        // `position` is not over, so the solver always answers.
        let analysis = Connect4Solver(book: Connect4Book.shipped).analyse(position)
            ?? Connect4Analysis(moveScores: Array(repeating: nil, count: 7))
        return json ? self.json(moves: moves, analysis) : text(moves: moves, analysis, position: position)
    }

    /// A table of every column's score, the position's score and the best move.
    static func text(moves: String, _ analysis: Connect4Analysis, position: Connect4) -> String {
        let player = position.moveCount % 2 == 0 ? "first" : "second"
        var out = "connect4 after \(moves.isEmpty ? "no moves" : moves): the \(player) player to move\n"
        out += "score \(signed(analysis.score)): \(meaning(analysis.score))\n\n"
        out += "move  score\n"
        for (column, score) in analysis.moveScores.enumerated() {
            out += "   \(column + 1)  " + (score.map { pad(signed($0), 5) + "  " + meaning($0) } ?? "    -  column full") + "\n"
        }
        out += "\nbest: \(analysis.best + 1)\n"
        return out
    }

    /// One line: `{"best":"4","moves":[{"move":"1","score":-2},…],"position":"4453","score":1}`;
    /// full columns are left out of `moves`.
    static func json(moves: String, _ analysis: Connect4Analysis) -> String {
        let entries = analysis.moveScores.enumerated().compactMap { column, score in
            score.map { "{\"move\":\"\(column + 1)\",\"score\":\($0)}" }
        }
        return "{\"best\":\"\(analysis.best + 1)\",\"moves\":[\(entries.joined(separator: ","))],"
            + "\"position\":\"\(moves)\",\"score\":\(analysis.score)}\n"
    }

    private static func signed(_ score: Int) -> String { score > 0 ? "+\(score)" : "\(score)" }

    private static func pad(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    /// What a score means for the player it belongs to.
    static func meaning(_ score: Int) -> String {
        if score > 0 { return "wins with its stone \(22 - score)" }
        if score < 0 { return "loses to the other's stone \(22 + score)" }
        return "draws"
    }
}
