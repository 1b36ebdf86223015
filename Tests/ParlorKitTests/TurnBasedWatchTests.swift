import Games
import Match
import ParlorKit
import ParlorTestSupport
import Session
import Testing

/// Spectators through the front door, over real sockets: one there from the
/// start and one that arrives late see the players' turns and the same end.
@Suite(.timeLimit(.minutes(1)))
struct TurnBasedWatchTests {
    init() { Nim.register() }

    /// The turns a reader of `events` saw, as "seat move", and how it ended.
    static func follow(_ events: AsyncStream<TurnBasedEvent<Nim>>) async -> (turns: [String], outcomes: [Outcome]) {
        var turns: [String] = [], outcomes: [Outcome] = []
        for await event in events {
            switch event {
            case .turnEnded(let participant, let move, _, _):
                #expect(!participant.isLocal)
                turns.append("\(participant.seat) \(move?.rawValue ?? -1)")
            case .ended(let participants, _):
                outcomes = participants.map(\.outcome)
            default:
                break
            }
        }
        return (turns, outcomes)
    }

    /// Plays the first legal move on this side's turns, `turns` times (nil: to the end); the turns it saw.
    static func play(_ match: TurnBasedMatch<Nim>, turns: Int?) async throws -> [String] {
        var seen: [String] = [], played = 0
        for await event in match.events {
            switch event {
            case .turnBegan(let participant, let game) where participant.isLocal:
                if let turns, played == turns { continue }
                guard let move = game.legalMoves.first else { continue }
                try await match.endTurn(with: move)
                played += 1
            case .turnEnded(let participant, let move, _, _):
                seen.append("\(participant.seat) \(move?.rawValue ?? -1)")
            default:
                break
            }
        }
        return seen
    }

    @Test("a spectator there from the start and one who arrives late both see the match to the players' end")
    func earlyAndLateSpectators() async throws {
        let table = try await TurnBasedLAN.host(Nim.self, as: "Ana", advertise: false)
        async let joining = TurnBasedLAN.join(Nim.self, host: "127.0.0.1", port: table.port, as: "Bo")
        let host = try await table.waitForMatch()
        let guest = try await joining
        let early = try await TurnBasedLAN.watch(Nim.self, host: "127.0.0.1", port: table.port, as: "Cy")
        #expect(await early.participants.map(\.name).sorted() == ["Ana", "Bo"])
        #expect(await early.participants.allSatisfy { !$0.isLocal })
        async let earlySaw = Self.follow(early.events)
        async let hostSaw = Self.play(host, turns: nil)
        // The guest plays one move, then waits: a spectator arrives in the middle of the match.
        async let guestFirst = Self.play(guest, turns: 1)
        while await guest.game.moveCount < 2 { try await Task.sleep(for: .milliseconds(5)) }
        let late = try await TurnBasedLAN.watch(Nim.self, host: "127.0.0.1", port: table.port, as: "Di")
        // The late spectator sees the match as it stands at once, not an empty board.
        let lateStart = await late.game
        #expect(lateStart.moveCount >= 2 && lateStart.heaps != Nim.startingHeaps)
        async let lateSaw = Self.follow(late.events)
        try await guest.quit()
        let (players, fromStart, fromMiddle) = try await (hostSaw, earlySaw, lateSaw)
        _ = try await guestFirst
        #expect(fromStart.turns == players, "the early spectator saw every turn")
        #expect(fromStart.turns.last == "\(guest.localSeat) -1", "the guest's quit is a turn ended without a move")
        #expect(players.hasSuffix(fromMiddle.turns), "the late spectator saw the turns after it came")
        #expect(!fromMiddle.turns.isEmpty)
        let final = await host.participants.map(\.outcome)
        #expect(fromStart.outcomes == final && fromMiddle.outcomes == final)
        #expect(final[guest.localSeat] == .quit)
        await host.leave()
    }
}

extension Array where Element: Equatable {
    /// Whether this array ends with `suffix`.
    func hasSuffix(_ suffix: [Element]) -> Bool {
        suffix.count <= count && Array(self[(count - suffix.count)...]) == suffix
    }
}
