import Foundation
import Bots
import Games
import Match
import Session
import Synchronization

/// Runs `parlor bench soak`: N bot-against-bot matches, each a real host and
/// guest over loopback TCP in this process, a few at a time. After each match
/// the host's and the guest's final state hashes must be equal; a match that
/// ends otherwise (a desync, a lost connection, no end within the time limit)
/// is counted and reported. Prints the figures docs/SOAK.md records.
func runBenchSoak(_ options: BenchSoakOptions) async throws -> ExitCode {
    _ = try? DescriptorLimit.raise()
    let games = options.game.map { [$0] } ?? GameCatalog.all.map { $0.id }
    Console.write("parlor bench soak: \(options.matches) matches of \(games.joined(separator: ", ")), random-move bots, "
                  + "\(SoakLimits.concurrentMatches) at a time over 127.0.0.1\n")
    let descriptorsBefore = ProcessFigures.openDescriptors()
    let survivors = SurvivorWatch()
    let started = ContinuousClock.now
    var tally = SoakTally()
    await withTaskGroup(of: SoakResult.self) { group in
        var launched = 0
        while launched < min(SoakLimits.concurrentMatches, options.matches) {
            let (index, game) = (launched, games[launched % games.count])
            group.addTask { await playSoakMatch(index: index, gameID: game, survivors: survivors) }
            launched += 1
        }
        while let result = await group.next() {
            tally.record(result)
            if tally.played % max(1, options.matches / 10) == 0 || !result.isAgreement {
                Console.writeError("  \(tally.played)/\(options.matches) played, \(tally.desyncs) desyncs, \(tally.failed) failed\n")
            }
            if launched < options.matches {
                let (index, game) = (launched, games[launched % games.count])
                group.addTask { await playSoakMatch(index: index, gameID: game, survivors: survivors) }
                launched += 1
            }
        }
    }
    let elapsed = ContinuousClock.now - started
    let seconds = max(Double(elapsed.microseconds) / 1_000_000, 0.000_001)
    // Give sockets closed by the last matches a moment to be released before counting.
    try? await Task.sleep(for: .milliseconds(200))
    let descriptorsAfter = ProcessFigures.openDescriptors()
    var report = """
          matches played: \(tally.played) in \(String(format: "%.1f", seconds)) s (\(String(format: "%.1f", Double(tally.played) / seconds)) matches/s)
          turns: \(tally.turns) (\(String(format: "%.0f", Double(tally.turns) / seconds)) turns/s)
          desyncs: \(tally.desyncs)
          failed matches: \(tally.failed)
          objects of finished matches still alive (controllers, peers, hosts, sockets): \(survivors.aliveCount) of \(survivors.watchedCount)
          open file descriptors: \(descriptorsBefore.map(String.init) ?? "?") before, \(descriptorsAfter.map(String.init) ?? "?") after
          peak memory (VmHWM): \(ProcessFigures.statusField("VmHWM") ?? "?")   at the end (VmRSS): \(ProcessFigures.statusField("VmRSS") ?? "?")

        """
    for problem in tally.problems.prefix(10) { report += "  match \(problem.index + 1): \(problem.reason)\n" }
    Console.write(report)
    return tally.problems.isEmpty ? .success : .failure
}

/// Fixed parameters of the soak.
enum SoakLimits {
    /// Matches in flight at once: enough to interleave sessions, few enough for two cores.
    static let concurrentMatches = 4
    /// A match of random moves takes milliseconds; one still going after this has hung.
    static let matchTimeLimit: Duration = .seconds(60)
}

/// How one soak match ended.
enum SoakResult: Sendable {
    /// Both sides ended with the same state; `turns` moves were played.
    case agreed(turns: Int)
    /// The two sides disagree (or one of them detected that they do).
    case desync(index: Int, reason: String)
    /// The match did not get to an end: a failed handshake, a lost connection, a hang.
    case failed(index: Int, reason: String)

    var isAgreement: Bool { if case .agreed = self { true } else { false } }
}

/// Running totals of the soak.
struct SoakTally {
    var played = 0
    var turns = 0
    var desyncs = 0
    var failed = 0
    /// What went wrong in which match, desyncs and failures alike, in the order they ended.
    var problems: [(index: Int, reason: String)] = []

    mutating func record(_ result: SoakResult) {
        played += 1
        switch result {
        case .agreed(let turns): self.turns += turns
        case .desync(let index, let reason):
            desyncs += 1
            problems.append((index, "DESYNC: \(reason)"))
        case .failed(let index, let reason):
            failed += 1
            problems.append((index, reason))
        }
    }
}

/// One match: a host with a listener of its own, a guest joining over TCP,
/// random-move bots on both seats; then the two final states compared.
private func playSoakMatch(index: Int, gameID: String, survivors: SurvivorWatch) async -> SoakResult {
    let listener: TCPListener
    let host: MatchHost
    do {
        listener = try TCPListener.listen(port: 0, on: .specific(try SocketAddress(ipAddress: "127.0.0.1", port: 0)))
        host = try MatchHost(configuration: HostConfiguration(
            gameID: gameID, hostName: "Host bot", hostPlayerID: .random(),
            seatPreference: index % 2 == 0 ? .first : .second, appVersion: ParlorVersion.current))
    } catch {
        return .failed(index: index, reason: "could not start the host: \(error)")
    }
    let acceptor = Task { await host.serve(listener) }
    let connection: TCPConnection
    do {
        connection = try await TCPConnection.connect(host: "127.0.0.1", port: listener.port)
    } catch {
        acceptor.cancel()
        await host.shutdown()
        listener.close()
        return .failed(index: index, reason: "could not connect to the host: \(error)")
    }
    let match = Task { () -> SoakResult in
        do {
            async let joining = Guest.join(over: connection.byteStream(),
                                           hello: Hello(appVersion: ParlorVersion.current, playerID: .random(), playerName: "Guest bot"))
            let hosted = try await host.waitForGuest()
            let joined = try await joining
            let seed = UInt64(index) &* 0x9E37_79B9_7F4A_7C15
            let (hostController, _) = hosted.makeController { BotParticipant(playerID: $0, strategy: randomMoves(seed: seed)) }
            let (guestController, _) = joined.makeController { BotParticipant(playerID: $0, strategy: randomMoves(seed: ~seed)) }
            for object: any AnyObject & Sendable in [hostController, guestController, hosted.remote, joined.remote, host, listener, connection] {
                survivors.watch(object)
            }
            try await hostController.start()
            try await guestController.start()
            let hostFinal = await hostController.finished()
            let guestFinal = await guestController.finished()
            return soakVerdict(index: index, host: hostFinal, hostFailure: await hostController.stopFailure,
                           guest: guestFinal, guestFailure: await guestController.stopFailure)
        } catch {
            return .failed(index: index, reason: "\(error)")
        }
    }
    let watchdog = Task { () -> Bool in
        do { try await Task.sleep(for: SoakLimits.matchTimeLimit) } catch { return false }
        // Closing the sockets makes both sides see a lost connection and stop.
        connection.abort()
        await host.shutdown()
        listener.close()
        return true
    }
    var result = await match.value
    watchdog.cancel()
    if await watchdog.value, case .failed(let index, let reason) = result {
        result = .failed(index: index, reason: "no end within \(SoakLimits.matchTimeLimit) (\(reason))")
    }
    acceptor.cancel()
    await host.shutdown()
    listener.close()
    connection.close()
    return result
}

/// The verdict on one match from both sides' final states.
func soakVerdict(index: Int, host: MatchState, hostFailure: MatchFailure?,
                     guest: MatchState, guestFailure: MatchFailure?) -> SoakResult {
    for (side, failure) in [("host", hostFailure), ("guest", guestFailure)] {
        switch failure {
        case .desync(let why)?: return .desync(index: index, reason: "the \(side) detected a desync: \(why)")
        case .connectionLost(let why)?: return .failed(index: index, reason: "the \(side) lost the connection: \(why)")
        case nil: break
        }
    }
    guard host.stateHash == guest.stateHash else {
        return .desync(index: index, reason: "final state hashes differ: host \(String(host.stateHash, radix: 16)) "
                       + "at change \(host.sequence), guest \(String(guest.stateHash, radix: 16)) at change \(guest.sequence)")
    }
    guard host.isEnded else { return .failed(index: index, reason: "both sides stopped before the match ended") }
    return .agreed(turns: host.moves.count)
}

/// A strategy that plays a uniformly random legal move, reproducibly from `seed`.
private func randomMoves(seed: UInt64) -> BotParticipant.Strategy {
    let random = Mutex(SplitMix64(seed: seed))
    return { game, _ in random.withLock { game.legalMoves.randomElement(using: &$0) } }
}

/// Weak references to every match's controllers and session objects: any
/// still alive after the soak belongs to a match that was never freed (a
/// reference cycle), which a long-running host would accumulate.
final class SurvivorWatch: Sendable {
    private struct Weak: Sendable { weak var object: (any AnyObject & Sendable)? }
    private let watched = Mutex<[Weak]>([])

    /// Starts watching `object`.
    func watch(_ object: any AnyObject & Sendable) {
        watched.withLock { $0.append(Weak(object: object)) }
    }

    /// How many objects were watched.
    var watchedCount: Int { watched.withLock { $0.count } }
    /// How many of them are still alive.
    var aliveCount: Int { watched.withLock { $0.filter { $0.object != nil }.count } }
}

/// Figures about this process from /proc (Linux).
enum ProcessFigures {
    /// A field of /proc/self/status such as `VmHWM` (peak resident memory), e.g. "12345 kB".
    static func statusField(_ name: String) -> String? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            return line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// How many file descriptors this process has open: a leak shows as growth over a soak.
    static func openDescriptors() -> Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")).map { $0.count }
    }
}
