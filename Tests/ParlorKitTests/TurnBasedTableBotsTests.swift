import Games
import Match
import ParlorKit
import ParlorTestSupport
import Session
import Testing

/// The table people try first, through the front door: me, a friend and a
/// bot, with a spectator who arrives after the first moves. Real sockets.
@Suite(.timeLimit(.minutes(1)))
struct TurnBasedTableBotsTests {
    init() { Nim.register() }

    /// Plays the first legal move on this side's turns to the end; the seats
    /// whose moves it saw, and the names of the players as it ended.
    static func play(_ match: TurnBasedMatch<Nim>) async throws -> (movers: [Int], ended: [String]) {
        var movers: [Int] = [], ended: [String] = []
        for await event in match.events {
            switch event {
            case .turnBegan(let participant, let game) where participant.isLocal:
                if let move = game.legalMoves.first { try await match.endTurn(with: move) }
            case .turnEnded(let participant, _?, _, _):
                movers.append(participant.seat)
            case .ended(let participants, _):
                ended = participants.map(\.name)
            default:
                break
            }
        }
        return (movers, ended)
    }

    @Test("a host of three seats with one bot and one friend plays to the end; the bot moves at its turns, both sides and a late spectator agree")
    func meAFriendAndABot() async throws {
        let table = try await TurnBasedLAN.host(Nim.self, as: "Ana", seats: 3, bots: [.bot(.easy)], advertise: false)
        async let joining = TurnBasedLAN.join(Nim.self, host: "127.0.0.1", port: table.port, as: "Bo")
        let host = try await table.waitForMatch()
        let guest = try await joining
        let names = await host.participants.map(\.name)
        #expect(names.sorted() == ["Ana", "Bo", "Easy bot"])
        #expect(await guest.participants.map(\.name) == names, "both sides seat the same players")
        let botSeat = try #require(names.firstIndex(of: "Easy bot"))
        async let hostPlayed = Self.play(host)
        async let guestPlayed = Self.play(guest)
        let late = try await TurnBasedLAN.watch(Nim.self, host: "127.0.0.1", port: table.port, as: "Cy")
        var spectatorEnd: [String] = []
        for await event in late.events { if case .ended(let participants, _) = event { spectatorEnd = participants.map(\.name) } }
        let (onHost, onGuest) = try await (hostPlayed, guestPlayed)
        #expect(onHost.movers.contains(botSeat), "the bot played its turns")
        #expect(onHost.movers == onGuest.movers, "both sides saw the same moves in the same order")
        #expect(onHost.ended == names && onGuest.ended == names && spectatorEnd == names)
        let (hostState, guestState) = (await host.state, await guest.state)
        #expect(hostState.stateHash == guestState.stateHash)
        await host.leave()
    }

    @Test("a bot seat played by .caller, or bots that leave no seat for a guest, are refused with a sentence")
    func badTables() async throws {
        await #expect { _ = try await TurnBasedLAN.host(Nim.self, as: "Ana", seats: 3, bots: [.caller], advertise: false) } throws: { error in
            "\(error)" == "a bot seat is played by .bot(level) or .strategy; .caller plays only this side's own seat"
        }
        await #expect { _ = try await TurnBasedLAN.host(Nim.self, as: "Ana", seats: 3, bots: [.bot(.easy), .bot(.hard)], advertise: false) } throws: { error in
            error is HostError
        }
    }
}
