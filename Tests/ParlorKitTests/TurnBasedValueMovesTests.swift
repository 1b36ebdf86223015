import Foundation
import Games
import Match
import ParlorKit
import ParlorTestSupport
import Store
import Testing

/// Issue 39: a game whose moves are `Codable` values of its own, played over
/// real sockets through the front door, typed on both sides, saved by both.
@Suite(.timeLimit(.minutes(1)))
struct TurnBasedValueMovesTests {
    init() { WordChain.register() }

    /// The chain both sides play, a word a turn.
    static let chain = ["apple", "egg", "grape", "eel"]

    /// Plays this side's words of `chain`, first trying one too long for the
    /// game; returns the words this side saw played, in order, and the refusal.
    static func play(_ match: TurnBasedMatch<WordChain>) async throws -> (seen: [String], refusal: String?) {
        var seen: [String] = []
        var refusal: String?
        for await event in match.events {
            switch event {
            case .turnBegan(let participant, let game) where participant.isLocal:
                if refusal == nil {
                    do { try await match.endTurn(with: WordChain.Word(text: String(repeating: "e", count: 30))) } catch {
                        refusal = error.description
                    }
                }
                try await match.endTurn(with: WordChain.Word(text: chain[game.words.count]))
            case .turnEnded(_, let move?, _, _):
                seen.append(WordChain.value(of: move)?.text ?? "?")
            default:
                break
            }
        }
        return (seen, refusal)
    }

    @Test("two sides play a game of Codable moves, each sees the other's words as values, and both save the same match")
    func wordsOverTheLAN() async throws {
        let hostStore = MatchStore(directory: NSTemporaryDirectory() + "parlorkit-" + UUID().uuidString)
        let guestStore = MatchStore(directory: NSTemporaryDirectory() + "parlorkit-" + UUID().uuidString)
        defer {
            try? FileManager.default.removeItem(atPath: hostStore.directory)
            try? FileManager.default.removeItem(atPath: guestStore.directory)
        }
        let table = try await TurnBasedLAN.host(WordChain.self, as: "Ana", advertise: false, store: hostStore)
        async let joining = TurnBasedLAN.join(WordChain.self, host: "127.0.0.1", port: table.port, as: "Bo", store: guestStore)
        let host = try await table.waitForMatch()
        let guest = try await joining
        async let hostPlay = Self.play(host)
        async let guestPlay = Self.play(guest)
        let (onHost, onGuest) = try await (hostPlay, guestPlay)
        #expect(onHost.seen == Self.chain && onGuest.seen == Self.chain)
        #expect(onHost.refusal == "refused: the move is 41 bytes, more than this game's 24")
        #expect(onGuest.refusal == onHost.refusal)
        _ = await (host.finished(), guest.finished())
        await host.leave()
        let saved = (hostStore.list().matches, guestStore.list().matches)
        try #require(saved.0.count == 1 && saved.1.count == 1)
        #expect(saved.0[0].state.stateHash == saved.1[0].state.stateHash)
        #expect(saved.1[0].state.game(as: WordChain.self)?.words == Self.chain, "the guest's record reads back as words")
        #expect(saved.0[0].phase == .ended)
    }
}
