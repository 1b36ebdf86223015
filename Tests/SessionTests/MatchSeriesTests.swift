import Games
import Match
import ParlorTestSupport
import Synchronization
import Testing
@testable import Session

/// The one series loop both sides play: a match, then rematches while both want one.
@Suite struct MatchSeriesTests {
    /// The other side as the series reads it: what it offered or ruled out, and whether the connection was kept.
    final class Talk: RematchTalk {
        let offered: Bool
        let ruledOut: RematchEnd?
        let kept = Mutex(false)
        init(offered: Bool = false, ruledOut: RematchEnd? = nil) {
            self.offered = offered
            self.ruledOut = ruledOut
        }
        var peerOfferedRematch: Bool { offered }
        var rematchRuledOut: RematchEnd? { ruledOut }
        var rematchNews: AsyncStream<RematchNews> {
            AsyncStream { continuation in
                if offered { continuation.yield(.offered) }
                if let ruledOut { continuation.yield(.ruledOut(ruledOut)) }
                continuation.finish()
            }
        }
        func keepConnectionForRematch() { kept.withLock { $0 = true } }
    }

    struct Game: SeriesMatch {
        let number: Int
        let initialState: MatchState
        let localSeat: SeatIndex = 0
        let peerName = "Ben"
        let talk: any RematchTalk
        var guestsOwedTheEnd: [RemoteGuest] { [] }
        var spectatorsOwedTheEnd: SpectatorGallery? { nil }
        var probe: Talk { talk as! Talk }
    }

    final class Said: Sendable {
        let ends = Mutex<[RematchEnd]>([])
    }

    /// What happened, in order, as a person would notice it: matches played, questions, sentences.
    struct Player: SeriesPlayer {
        var possible = true
        /// Whether each match ends normally, and whether our seat quit it, by match number.
        var endsNormally: (Int) -> Bool = { _ in true }
        var weQuit: (Int) -> Bool = { _ in false }
        var answer = true
        var log: [String] = []
        /// Why there was no rematch, as each was said.
        let said = Said()

        var rematchPossible: Bool { possible }

        mutating func play(_ match: Game) async throws -> (result: Int, ended: MatchState?) {
            log.append("play \(match.number)")
            guard endsNormally(match.number) else { return (match.number, nil) }
            let ended = weQuit(match.number) ? try match.initialState.applying(.quit(0), now: 1) : match.initialState
            return (match.number, ended)
        }
        mutating func wantsRematch(peer: String, peerOffered: Bool, weQuit: Bool) async -> Bool {
            log.append("asked \(peer) offered=\(peerOffered) weQuit=\(weQuit)")
            return answer
        }
        func noRematch(_ end: RematchEnd, peer: String) { said.ends.withLock { $0.append(end) } }
        mutating func rematchStarted(_ next: Game) async { log.append("rematch \(next.number)") }
        func tell(_ notice: SeriesNotice) {}
    }

    static func game(_ number: Int, talk: Talk = Talk()) -> Game {
        Game(number: number, initialState: MatchFixtures.newMatch(seed: UInt64(number)), talk: talk)
    }

    @Test func rematchesFollowWhileBothWantOneAndTheLastResultIsReturned() async throws {
        var player = Player()
        let answers = Mutex<[Bool]>([])
        let first = Self.game(1)
        let result = try await MatchSeries.play(from: first, with: &player, timing: .init(grace: .zero)) { match, wants in
            answers.withLock { $0.append(wants) }
            return match.number < 3 ? .newMatch(Self.game(match.number + 1)) : .over(.peerDeclined)
        }
        #expect(result == 3)
        #expect(player.log == ["play 1", "asked Ben offered=false weQuit=false", "rematch 2",
                               "play 2", "asked Ben offered=false weQuit=false", "rematch 3",
                               "play 3", "asked Ben offered=false weQuit=false"])
        #expect(answers.withLock { $0 } == [true, true, true])
        #expect(player.said.ends.withLock { $0 } == [.peerDeclined], "the reason there is no more rematch is said once")
        #expect(first.probe.kept.withLock { $0 }, "the connection is kept past the end when a rematch can follow")
    }

    @Test func withoutAPossibleRematchTheConnectionIsNotKeptAndNobodyIsAsked() async throws {
        var player = Player(possible: false)
        let first = Self.game(1)
        let result = try await MatchSeries.play(from: first, with: &player, timing: .init(grace: .zero)) { _, _ in
            Issue.record("no rematch talk without a possible rematch")
            return .over(.notConnected)
        }
        #expect(result == 1)
        #expect(player.log == ["play 1"])
        #expect(!first.probe.kept.withLock { $0 })
    }

    @Test func aMatchThatDidNotEndNormallyEndsTheSeries() async throws {
        var player = Player(endsNormally: { _ in false })
        let result = try await MatchSeries.play(from: Self.game(1), with: &player, timing: .init(grace: .zero)) { _, _ in
            Issue.record("no rematch after a match left for now")
            return .over(.notConnected)
        }
        #expect(result == 1)
        #expect(player.log == ["play 1"])
    }

    @Test func aRematchTheOtherSideRuledOutIsNotAsked() async throws {
        var player = Player()
        let result = try await MatchSeries.play(from: Self.game(1, talk: Talk(ruledOut: .peerLeft)), with: &player,
                                                timing: .init(grace: .zero)) { _, _ in
            Issue.record("no rematch talk once the peer left")
            return .over(.notConnected)
        }
        #expect(result == 1)
        #expect(player.log == ["play 1"])
        #expect(player.said.ends.withLock { $0 } == [.peerLeft])
    }

    @Test func theQuestionHearsTheOfferAndWhetherThisSideQuit() async throws {
        var player = Player(weQuit: { _ in true }, answer: false)
        let wanted = Mutex<Bool?>(nil)
        _ = try await MatchSeries.play(from: Self.game(1, talk: Talk(offered: true)), with: &player,
                                       timing: .init(grace: .zero)) { _, wants in
            wanted.withLock { $0 = wants }
            return .over(.weDeclined)
        }
        #expect(player.log == ["play 1", "asked Ben offered=true weQuit=true"])
        #expect(wanted.withLock { $0 } == false, "this side's answer goes to the other side")
    }
}
