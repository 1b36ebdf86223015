import Foundation
import Games
import Match
import ParlorKit
import ParlorTestSupport
import Session
import Store
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

    /// Plays the first legal move on this side's turns, `turns` times, then returns.
    static func play(_ match: TurnBasedMatch<Nim>, turns: Int) async throws {
        var played = 0
        for await event in match.events {
            guard case .turnBegan(let participant, let game) = event, participant.isLocal, let move = game.legalMoves.first else { continue }
            try await match.endTurn(with: move)
            played += 1
            if played == turns { return }
        }
    }

    @Test("the table with a bot, left for now by both players, comes back from each side's store with the bot at its seat, and ends alike")
    func theTableComesBack() async throws {
        let root = NSTemporaryDirectory() + "parlorkit-table-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let hostStore = MatchStore(directory: root + "/host"), guestStore = MatchStore(directory: root + "/guest")
        let table = try await TurnBasedLAN.host(Nim.self, as: "Ana", seats: 3, bots: [.bot(.easy)], advertise: false, store: hostStore)
        async let joining = TurnBasedLAN.join(Nim.self, host: "127.0.0.1", port: table.port, as: "Bo", store: guestStore)
        let host = try await table.waitForMatch()
        let guest = try await joining
        async let hostPlayed: Void = Self.play(host, turns: 1)
        async let guestPlayed: Void = Self.play(guest, turns: 1)
        _ = try await (hostPlayed, guestPlayed)
        await host.leaveForNow()
        await guest.leaveForNow()
        let hostRecord = try #require(hostStore.list().matches.first), guestRecord = try #require(guestStore.list().matches.first)
        #expect(hostRecord.phase == .interrupted && guestRecord.phase == .interrupted)
        #expect(hostRecord.tableSeats.map(\.kind).contains(.bot) && hostRecord.tableSeats.map(\.botLevel).contains("easy"))
        let before = hostRecord.state.moves.count

        let again = try await TurnBasedLAN.resume(Nim.self, hosting: hostRecord, store: hostStore, advertise: false)
        async let guestBack = TurnBasedLAN.resume(Nim.self, joined: guestRecord, store: guestStore, grace: .seconds(20))
        let hostBack = try await again.waitForMatch()
        let guestAgain = try await guestBack
        #expect(await hostBack.participants.map(\.name) == hostRecord.state.seats.map(\.name))
        async let hostRest = Self.play(hostBack)
        async let guestRest = Self.play(guestAgain)
        let (onHost, onGuest) = try await (hostRest, guestRest)
        let botSeat = try #require(hostRecord.state.seats.firstIndex { $0.name == "Easy bot" })
        #expect(onHost.movers.contains(botSeat), "the bot plays its seat after the resume")
        #expect(onHost.movers == onGuest.movers && onHost.ended == onGuest.ended)
        _ = await (hostBack.finished(), guestAgain.finished())
        await hostBack.leave()
        let (hostEnd, guestEnd) = (try #require(hostStore.list().matches.first), try #require(guestStore.list().matches.first))
        #expect(hostEnd.phase == .ended && guestEnd.phase == .ended)
        #expect(hostEnd.state.stateHash == guestEnd.state.stateHash && hostEnd.state.moves.count > before)
    }
}
