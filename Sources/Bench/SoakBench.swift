import Foundation
import Bots
import Games
import Match
import Secure
import Session
import Synchronization

/// `parlor bench soak`: N bot-against-bot matches, each a real host and
/// guest over loopback TCP in this process, a few at a time. After each match
/// the host's and the guest's final state hashes must be equal; a match that
/// ends otherwise (a desync, a lost connection, no end within the time limit)
/// is counted and reported. ParlorCLI prints the figures docs/SOAK.md records.
public enum SoakBench {
    /// What the soak found.
    public struct Figures: Sendable {
        public var tally: SoakTally
        public var seconds: Double
        /// Objects of finished matches still alive, of those watched.
        public var survivors: Int, watched: Int
        public var descriptorsBefore: Int?, descriptorsAfter: Int?
        /// /proc/self/status's VmHWM and VmRSS at the end, e.g. "12345 kB".
        public var peakMemory: String?, residentMemory: String?
        /// Every match agreed: the soak passed.
        public var passed: Bool { tally.problems.isEmpty }
    }

    /// Plays `matches` matches cycling through `games`, announcing `appVersion`;
    /// `progress` hears the tally after every match that ended (from the
    /// calling task), so ParlorCLI can show how far it got.
    public static func run(matches: Int, games: [String], appVersion: String,
                           progress: (SoakTally, _ lastAgreed: Bool) -> Void) async -> Figures {
        _ = try? DescriptorLimit.raise()
        let descriptorsBefore = ProcessFigures.openDescriptors()
        let survivors = SurvivorWatch()
        let started = ContinuousClock.now
        var tally = SoakTally()
        await withTaskGroup(of: SoakResult.self) { group in
            var launched = 0
            while launched < min(SoakLimits.concurrentMatches, matches) {
                let (index, game) = (launched, games[launched % games.count])
                group.addTask { await playSoakMatch(index: index, gameID: game, survivors: survivors, appVersion: appVersion) }
                launched += 1
            }
            while let result = await group.next() {
                tally.record(result)
                progress(tally, result.isAgreement)
                if launched < matches {
                    let (index, game) = (launched, games[launched % games.count])
                    group.addTask { await playSoakMatch(index: index, gameID: game, survivors: survivors, appVersion: appVersion) }
                    launched += 1
                }
            }
        }
        let elapsed = ContinuousClock.now - started
        let seconds = max(Double(elapsed.microseconds) / 1_000_000, 0.000_001)
        // Give sockets closed by the last matches a moment to be released before counting.
        try? await Task.sleep(for: .milliseconds(200))
        return Figures(tally: tally, seconds: seconds, survivors: survivors.aliveCount, watched: survivors.watchedCount,
                       descriptorsBefore: descriptorsBefore, descriptorsAfter: ProcessFigures.openDescriptors(),
                       peakMemory: ProcessFigures.statusField("VmHWM"), residentMemory: ProcessFigures.statusField("VmRSS"))
    }
}

/// Fixed parameters of the soak.
public enum SoakLimits {
    /// Matches in flight at once: enough to interleave sessions, few enough for two cores.
    public static let concurrentMatches = 4
    /// A match of random moves takes milliseconds; one still going after this has hung.
    public static let matchTimeLimit: Duration = .seconds(60)
}

/// How one soak match ended.
public enum SoakResult: Sendable {
    /// Both sides ended with the same state; `turns` moves were played.
    case agreed(turns: Int)
    /// The two sides disagree (or one of them detected that they do).
    case desync(index: Int, reason: String)
    /// The match did not get to an end: a failed handshake, a lost connection, a hang.
    case failed(index: Int, reason: String)

    public var isAgreement: Bool { if case .agreed = self { true } else { false } }
}

/// Running totals of the soak.
public struct SoakTally: Sendable {
    public var played = 0
    public var turns = 0
    public var desyncs = 0
    public var failed = 0
    /// What went wrong in which match, desyncs and failures alike, in the order they ended.
    public var problems: [(index: Int, reason: String)] = []

    public init() {}

    /// Counts one match's result.
    public mutating func record(_ result: SoakResult) {
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
private func playSoakMatch(index: Int, gameID: String, survivors: SurvivorWatch, appVersion: String) async -> SoakResult {
    let listener: TCPListener
    let host: MatchHost
    do {
        listener = try TCPListener.listen(port: 0, on: .specific(try SocketAddress(ipAddress: "127.0.0.1", port: 0)))
        host = try MatchHost(configuration: HostConfiguration(
            gameID: gameID, hostName: "Host bot", hostPlayerID: .random(),
            seatPreference: index % 2 == 0 ? .first : .second, appVersion: appVersion))
    } catch {
        return .failed(index: index, reason: "could not start the host: \(error)")
    }
    // Both sides sealed, each with a key of its own, as every LAN match is.
    let hostSecurity: ChannelSecurity
    let guestSecurity: ChannelSecurity
    do {
        hostSecurity = .encrypted(SecureChannelOptions(identity: try IdentityKeyPair.generate()))
        guestSecurity = .encrypted(SecureChannelOptions(identity: try IdentityKeyPair.generate()))
    } catch {
        listener.close()
        return .failed(index: index, reason: "could not make the players' keys: \(error)")
    }
    let acceptor = Task { await host.serve(listener, security: hostSecurity) }
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
            async let joining = Guest.join(over: guestSecurity.connecting(connection.byteStream()),
                                           hello: Hello(appVersion: appVersion, playerID: .random(), playerName: "Guest bot"))
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
public func soakVerdict(index: Int, host: MatchState, hostFailure: MatchFailure?,
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
