import Foundation
import Testing

/// The `nim` example as a user runs it, three processes at once: a spectator
/// who arrives after the match began, and a guest killed mid-match who takes
/// its seat back with `nim resume`.
@Suite(.timeLimit(.minutes(1))) struct WatchAndResumeTests {
    /// Moves to type: each heap in turn, one at a time; a move that is not
    /// legal any more is refused with a sentence and the next line is read.
    static let moves = String(repeating: "1 1\n2 1\n3 1\n", count: 12)

    /// Reads `lines` until one satisfies `done`; every line read, in order.
    static func read(_ lines: inout AsyncStream<String>.AsyncIterator, until done: (String) -> Bool) async -> [String] {
        var seen: [String] = []
        while let line = await lines.next() {
            seen.append(line)
            if done(line) { break }
        }
        return seen
    }

    /// `nim host --port 0 --bot` started, and its port.
    static func botHost() async throws -> (NimProcess, AsyncStream<String>.AsyncIterator, String) {
        let host = try NimProcess(["host", "--port", "0", "--bot"], home: temporaryHome())
        var lines = host.lines.makeAsyncIterator()
        let first = await read(&lines) { $0.hasPrefix("Hosting Nim on port") }
        let port = try #require(first.last?.split(separator: " ")[4].dropLast())
        return (host, lines, String(port))
    }

    @Test func aSpectatorWhoArrivesAfterTheStartSeesTheRestAndTheSameEnd() async throws {
        let (host, hostLines, port) = try await Self.botHost()
        defer { host.stop() }
        let guest = try NimProcess(["join", "127.0.0.1:\(port)"], home: temporaryHome(), input: nil)
        defer { guest.stop() }
        var guestLines = guest.lines.makeAsyncIterator()
        _ = await Self.read(&guestLines) { $0.hasPrefix("Heaps ") }  // its first turn: the match has begun
        let spectator = try NimProcess(["watch", "127.0.0.1:\(port)"], home: temporaryHome())
        defer { spectator.stop() }
        var watched = spectator.lines.makeAsyncIterator()
        let watching = await Self.read(&watched) { $0.hasPrefix("Watching") }
        #expect(watching.last?.hasPrefix("Watching Host vs Guest: heaps ") == true || watching.last?.hasPrefix("Watching Guest vs Host") == true,
                "\(watching)")
        guest.type(Self.moves)
        guest.endInput()
        var rest: [String] = []
        while let line = await guestLines.next() { rest.append(line) }
        var seen: [String] = []
        while let line = await watched.next() { seen.append(line) }
        var hostRest = hostLines
        while await hostRest.next() != nil {}
        let hash = { (lines: [String]) in lines.first { $0.hasPrefix("State hash: ") } }
        #expect(hash(seen) != nil && hash(seen) == hash(rest), "spectator \(seen), guest \(rest)")
        #expect(seen.contains { $0.hasPrefix("Guest took ") }, "it saw the guest's moves made after it arrived")
        let statuses = (await spectator.exitStatus(), await guest.exitStatus(), await host.exitStatus())
        #expect(statuses == (0, 0, 0))
    }

    @Test func aGuestKilledMidMatchResumesItsSeatAndBothEndAlike() async throws {
        let (host, hostLines, port) = try await Self.botHost()
        defer { host.stop() }
        let guestHome = try temporaryHome()
        let guest = try NimProcess(["join", "127.0.0.1:\(port)"], home: guestHome, input: nil)
        defer { guest.stop() }
        var guestLines = guest.lines.makeAsyncIterator()
        _ = await Self.read(&guestLines) { $0.hasPrefix("Heaps ") }
        // One move of the guest's, whichever heap has counters left; it is saved
        // once it is shown, and the bot's answer after it: then the guest dies.
        for heap in 1...3 {
            guest.type("\(heap) 1\n")
            let answer = await Self.read(&guestLines) { $0.hasPrefix("Guest took ") || $0.hasPrefix("That is not a move here") }
            if answer.last?.hasPrefix("Guest took ") == true { break }
        }
        _ = await Self.read(&guestLines) { $0.hasPrefix("Heaps ") }
        guest.kill()
        _ = await guest.exitStatus()

        let (output, status) = try await NimProcess.run(["resume"], home: guestHome, input: Self.moves)
        #expect(status == 0, "\(output)")
        #expect(output.first?.hasPrefix("Resuming match ") == true && output.first?.contains("(move ") == true, "\(output)")
        var hostRest: [String] = []
        var lines = hostLines
        while let line = await lines.next() { hostRest.append(line) }
        let hash = { (lines: [String]) in lines.first { $0.hasPrefix("State hash: ") } }
        #expect(hash(output) != nil && hash(output) == hash(hostRest), "guest \(output), host \(hostRest)")
        #expect(await host.exitStatus() == 0)
        // Nothing is left to resume.
        let again = try await NimProcess.run(["resume"], home: guestHome)
        #expect(again.status == 1 && again.output.contains("Error: there is no unfinished match to resume"), "\(again)")
    }
}

/// `nim host --tables 2`: a classroom's host, three guests as processes.
@Suite(.timeLimit(.minutes(1))) struct TablesTests {
    @Test func twoGuestsPlayAtOnceAThirdSitsAtAFreedTableAndEveryEndMatchesTheHosts() async throws {
        let host = try NimProcess(["host", "--tables", "2", "--port", "0"], home: temporaryHome())
        defer { host.stop() }
        var hostLines = host.lines.makeAsyncIterator()
        let first = await WatchAndResumeTests.read(&hostLines) { $0.hasPrefix("Hosting Nim on port") }
        let port = String(try #require(first.last?.split(separator: " ")[4]))
        let address = "127.0.0.1:\(port)"
        let hash = { (lines: [String]) in lines.first { $0.hasPrefix("State hash: ") }.map { String($0.dropFirst("State hash: ".count)) } }
        async let ana = NimProcess.run(["join", address, "--bot"], home: temporaryHome())
        async let bo = NimProcess.run(["join", address, "--bot"], home: temporaryHome())
        let (anaRun, boRun) = try await (ana, bo)
        // A table is free again once its guest has the end; one that comes a moment too soon is told all are in play, as a person would be.
        var cyRun = try await NimProcess.run(["join", address, "--bot"], home: temporaryHome())
        for _ in 0..<20 where cyRun.status != 0 && cyRun.output.contains(where: { $0.contains("tables on this host are in play") }) {
            try await Task.sleep(for: .milliseconds(100))
            cyRun = try await NimProcess.run(["join", address, "--bot"], home: temporaryHome())
        }
        var guestHashes: [String] = []
        for run in [anaRun, boRun, cyRun] {
            #expect(run.status == 0, "\(run.output)")
            guestHashes.append(try #require(hash(run.output), "\(run.output)"))
        }
        // The host printed each table's end with the same hash as its guest.
        var ends: [String] = []
        while ends.count < 3, let line = await hostLines.next() {
            if line.hasPrefix("Table "), let at = line.range(of: "State hash: ") { ends.append(String(line[at.upperBound...])) }
        }
        #expect(ends.sorted() == guestHashes.sorted(), "host \(ends), guests \(guestHashes)")
    }

    @Test func tablesIsOnlyForHostAndTakesANumber() async throws {
        let wrong = try await NimProcess.run(["join", "127.0.0.1:1", "--tables", "2"], home: temporaryHome())
        #expect(wrong.status == 64 && wrong.output.first == "Error: only host takes --tables", "\(wrong)")
        let none = try await NimProcess.run(["host", "--tables", "0"], home: temporaryHome())
        #expect(none.status == 64 && none.output.first == "Error: --tables takes a number from 1 to 1000", "\(none)")
    }
}
