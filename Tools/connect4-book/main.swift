// Builds the Connect Four opening book (scripts/build-connect4-book) and
// times the solver on move strings, one position per line (columns 1-7).
import Bots
import Foundation
import Games

func fail(_ text: String) -> Never {
    FileHandle.standardError.write(Data("connect4-book: \(text)\n".utf8))
    exit(64)
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "build":
    guard arguments.count == 2, let depth = Int(arguments[1]), (0...12).contains(depth) else {
        fail("usage: connect4-book build DEPTH (0-12)")
    }
    let clock = ContinuousClock()
    let start = clock.now
    let book = Connect4Book.build(depth: depth) { ply, count in
        FileHandle.standardError.write(Data("ply \(ply): \(count) positions (at \(clock.now - start))\n".utf8))
    }
    FileHandle.standardError.write(Data("\(book.count) entries in \(clock.now - start)\n".utf8))
    print(book.encoded, terminator: "")
case "time":
    // Each line a position; prints the score and the time, cold table per position.
    let useBook = arguments.contains("--book")
    let solver = Connect4Solver(book: useBook ? Connect4Book.shipped : nil)
    let clock = ContinuousClock()
    var total = Duration.zero, count = 0
    while let line = readLine() {
        var game = Connect4()
        for character in line {
            guard let column = character.wholeNumberValue, (try? game.apply(Move(column - 1))) != nil else { fail("bad line \(line)") }
        }
        if !arguments.contains("--warm") { solver.clearTable() }
        let nodesBefore = solver.nodes
        let start = clock.now
        guard let score = solver.score(game) else { fail("over: \(line)") }
        let elapsed = clock.now - start
        total += elapsed; count += 1
        print("\(line) \(score) \(elapsed) \(solver.nodes - nodesBefore)")
    }
    print("mean \(count == 0 ? .zero : total / count) over \(count)")
default:
    fail("usage: connect4-book build DEPTH | time [--book] < positions")
}
