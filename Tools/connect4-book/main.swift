// Builds the Connect Four opening book (scripts/build-connect4-book), times
// the solver on move strings, one position per line (columns 1-7), and
// checks hard's moves in games of its own against the solver (selfplay).
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
case "hard":
    // The book hard plays from (Connect4Book.buildForHard), on what the shipped book already knows.
    guard arguments.count >= 2, let depth = Int(arguments[1]), (0...12).contains(depth) else {
        fail("usage: connect4-book hard DEPTH (0-12) [THREADS]")
    }
    let threads = arguments.count > 2 ? Int(arguments[2]) ?? 1 : 1
    let clock = ContinuousClock()
    let start = clock.now
    // After each layer the book so far goes to PARTIAL (if set), so a long build can be kept half-way.
    let partial = ProcessInfo.processInfo.environment["PARTIAL"]
    let book = Connect4Book.buildForHard(depth: depth, known: Connect4Book.shipped, threads: threads) { stones, positions, solved, sofar in
        FileHandle.standardError.write(Data("after \(stones) stones: \(positions) positions, \(solved) solved (at \(clock.now - start))\n".utf8))
        if let partial { try? sofar.encoded.write(toFile: partial, atomically: true, encoding: .utf8) }
    }
    FileHandle.standardError.write(Data("\(book.count) entries in \(clock.now - start)\n".utf8))
    print(book.encoded, terminator: "")
case "time":
    // Each line a position; prints the score and the time, cold table per position.
    let useBook = arguments.contains("--book")
    let solver = Connect4Solver(book: useBook ? Connect4Book.shipped : nil)
    // Microseconds on `clock`, read directly (as a C++ timer reads it), so
    // both solvers pay the same for the measurement. The thread's CPU time
    // leaves out the other processes of a shared machine.
    func microseconds(_ clock: clockid_t) -> Double {
        var time = timespec()
        clock_gettime(clock, &time)
        return Double(time.tv_sec) * 1e6 + Double(time.tv_nsec) / 1e3
    }
    var total = 0.0, count = 0, cpu = 0.0
    while let line = readLine() {
        var game = Connect4()
        for character in line {
            guard let column = character.wholeNumberValue, (try? game.apply(Move(column - 1))) != nil else { fail("bad line \(line)") }
        }
        if !arguments.contains("--warm") { solver.clearTable() }
        let nodesBefore = solver.nodes
        let cpuStart = microseconds(CLOCK_THREAD_CPUTIME_ID)
        let start = microseconds(CLOCK_MONOTONIC)
        guard let score = solver.score(game) else { fail("over: \(line)") }
        let elapsed = microseconds(CLOCK_MONOTONIC) - start
        let cpuUsed = microseconds(CLOCK_THREAD_CPUTIME_ID) - cpuStart
        total += elapsed; count += 1; cpu += cpuUsed
        // The position, its score, wall microseconds, nodes, CPU microseconds.
        print("\(line) \(score) \(elapsed) \(solver.nodes - nodesBefore) \(cpuUsed)")
    }
    let divisor = Double(max(count, 1))
    print("mean \(total / divisor) us over \(count), cpu mean \(cpu / divisor) us")
case "selfplay":
    // hard's own games (Connect4Strength.hardOwnGames): every hard move from
    // 8 stones on (the book answers before) judged by the exact solver, a
    // line for each move that lets the value slip and for each game, then
    // the totals.
    guard arguments.count >= 2, let games = Int(arguments[1]) else { fail("usage: connect4-book selfplay GAMES [SEED]") }
    let seed = arguments.count > 2 ? UInt64(arguments[2]) ?? 1 : 1
    let judge = Connect4Solver(book: Connect4Book.shipped)
    var judged = 0, kept = 0, slowest = 0.0
    var afterBook: [Double] = []
    do {
        try Connect4Strength.hardOwnGames(count: games, seed: seed, eachMove: { hard in
            let took = hard.took / .milliseconds(1)
            slowest = max(slowest, took)
            guard hard.game.moveCount >= 8 else { return }
            afterBook.append(took)
            guard let analysis = judge.analyse(hard.game) else { fail("over: \(hard.line)") }
            judged += 1
            if analysis.moveScores[hard.move.rawValue] == analysis.score { kept += 1 } else {
                print("slip at \(hard.line) played \(hard.move.rawValue + 1) scores \(analysis.moveScores)")
            }
        }, gameOver: { line in
            print("game: \(line) kept \(kept)/\(judged) slowest hard move \(slowest) ms")
        })
    } catch {
        fail("\(error)")
    }
    afterBook.sort()
    let mean = afterBook.reduce(0, +) / Double(max(1, afterBook.count))
    let p99 = afterBook.isEmpty ? 0 : afterBook[min(afterBook.count - 1, afterBook.count * 99 / 100)]
    print("kept \(kept) of \(judged); hard's moves from 8 stones: mean \(mean) ms, p99 \(p99) ms; slowest hard move \(slowest) ms")
default:
    fail("usage: connect4-book build DEPTH | hard DEPTH [THREADS] | time [--book] < positions | selfplay GAMES [SEED]")
}
