import Foundation
import Games
import Match
import ParlorKit
import ParlorTestSupport
import Session
import Store
import Synchronization
import Testing

/// A game from outside parlor served at many tables through the front door,
/// as `parlor host GAME --bot LEVEL --tables N` serves the built-in ones.
/// Real sockets, real stores.
@Suite(.timeLimit(.minutes(1)))
struct TurnBasedHallTests {
    init() { Nim.register() }

    /// The hall's player: the last legal move, so the two sides play differently.
    static let lastMove: TurnBasedPlayer<Nim> = .strategy { game in game.legalMoves.last }

    /// A guest named `name` at the hall on `port`, saving into `store`.
    static func guest(_ name: String, port: UInt16, store: MatchStore? = nil) async throws -> TurnBasedMatch<Nim> {
        try await TurnBasedLAN.join(Nim.self, host: "127.0.0.1", port: port, as: name, store: store)
    }

    /// Plays the first legal move on this side's turns, `turns` times (nil: to the end).
    static func play(_ match: TurnBasedMatch<Nim>, turns: Int? = nil) async throws -> Int {
        var played = 0
        for await event in match.events {
            guard case .turnBegan(let participant, let game) = event, participant.isLocal, let move = game.legalMoves.first else { continue }
            try await match.endTurn(with: move)
            played += 1
            if let turns, played == turns { return played }
        }
        return played
    }

    /// Whether every table of `hall` is free within 4 s.
    static func allFreed(_ hall: TurnBasedHall<Nim>) async throws -> Bool {
        for _ in 0..<200 {
            if hall.inPlay == 0 { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    static func store(_ root: String, _ name: String) -> MatchStore { MatchStore(directory: root + "/" + name) }

    @Test("two tables, three guests: two play at once against the hall's strategy, the third sits at a freed table; every match is saved and ends alike on both sides")
    func threeGuestsAtTwoTables() async throws {
        let root = NSTemporaryDirectory() + "parlorkit-hall-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let hallStore = Self.store(root, "hall")
        let hall = try await TurnBasedLAN.hostTables(Nim.self, as: "Ana", tables: 2, playedBy: Self.lastMove, advertise: false,
                                                     store: hallStore)
        let seated = Mutex<[Int]>([])
        let watching = Task {
            for await table in hall.tables {
                seated.withLock { $0.append(table.number) }
                #expect(!table.resumed)
                #expect(await table.match.participants.map(\.name).contains("Ana"))
            }
        }
        let (boStore, cyStore, diStore) = (Self.store(root, "bo"), Self.store(root, "cy"), Self.store(root, "di"))
        let bo = try await Self.guest("Bo", port: hall.port, store: boStore)
        let cy = try await Self.guest("Cy", port: hall.port, store: cyStore)
        let (boID, cyID) = (await bo.state.matchID, await cy.state.matchID)
        #expect(boID != cyID, "a table, and a match, each")
        // Both tables are taken: a third guest is refused until one is free.
        await #expect(throws: (any Error).self) { _ = try await Self.guest("Ed", port: hall.port) }
        async let boPlayed = Self.play(bo)
        async let cyPlayed = Self.play(cy)
        _ = try await (boPlayed, cyPlayed)
        _ = await (bo.finished(), cy.finished())
        // The tables free themselves once their guests have the end.
        #expect(try await Self.allFreed(hall), "both tables were freed after their matches ended")
        let di = try await Self.guest("Di", port: hall.port, store: diStore)
        _ = try await Self.play(di)
        _ = await di.finished()
        await hall.close()
        await watching.value

        let numbers = seated.withLock { $0 }
        #expect(numbers.count == 3 && Set(numbers).isSubset(of: [1, 2]))
        let hallRecords = Dictionary(uniqueKeysWithValues: hallStore.list().matches.map { ($0.state.matchID, $0) })
        #expect(hallRecords.count == 3)
        for guestStore in [boStore, cyStore, diStore] {
            let guestRecord = try #require(guestStore.list().matches.first)
            let hallRecord = try #require(hallRecords[guestRecord.state.matchID])
            #expect(hallRecord.phase == .ended && guestRecord.phase == .ended)
            #expect(hallRecord.state.stateHash == guestRecord.state.stateHash)
            #expect(hallRecord.state.game(as: Nim.self)?.heaps == [0, 0, 0])
        }
    }

    @Test("closed mid-match, the hall leaves its tables for now; hosted again from its store, each guest resumes its own table and both sides end alike")
    func closedAndResumed() async throws {
        let root = NSTemporaryDirectory() + "parlorkit-hall-resume-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let hallStore = Self.store(root, "hall")
        let hall = try await TurnBasedLAN.hostTables(Nim.self, as: "Ana", tables: 3, playedBy: Self.lastMove, advertise: false,
                                                     store: hallStore)
        let (boStore, cyStore) = (Self.store(root, "bo"), Self.store(root, "cy"))
        let bo = try await Self.guest("Bo", port: hall.port, store: boStore)
        let cy = try await Self.guest("Cy", port: hall.port, store: cyStore)
        _ = try await (Self.play(bo, turns: 1), Self.play(cy, turns: 1))
        await hall.close()
        // Each guest heard that the host may come back; here they leave for now too, and resume from their stores.
        await bo.leaveForNow()
        await cy.leaveForNow()
        let saved = hallStore.list().matches
        #expect(saved.count == 2 && saved.allSatisfy { $0.phase == .interrupted }, "each table's match is left for now, not ended")
        let boRecord = try #require(boStore.list().matches.first), cyRecord = try #require(cyStore.list().matches.first)
        #expect(boRecord.phase == .interrupted && cyRecord.phase == .interrupted)

        let again = try await TurnBasedLAN.hostTables(Nim.self, as: "Ana", tables: 3, playedBy: Self.lastMove, resuming: saved,
                                                      port: hall.port, advertise: false, store: hallStore)
        let resumedTables = Mutex(0)
        let watching = Task { for await table in again.tables where table.resumed { resumedTables.withLock { $0 += 1 } } }
        async let boBack = TurnBasedLAN.resume(Nim.self, joined: boRecord, store: boStore, grace: .seconds(20), lookOnTheLAN: false)
        async let cyBack = TurnBasedLAN.resume(Nim.self, joined: cyRecord, store: cyStore, grace: .seconds(20), lookOnTheLAN: false)
        let (boAgain, cyAgain) = try await (boBack, cyBack)
        let (boMoves, cyMoves) = (await boAgain.game.moveCount, await cyAgain.game.moveCount)
        #expect(boMoves >= 1 && cyMoves >= 1, "each took its own table back, with its moves")
        _ = try await (Self.play(boAgain), Self.play(cyAgain))
        _ = await (boAgain.finished(), cyAgain.finished())
        #expect(try await Self.allFreed(again))
        await again.close()
        await watching.value
        #expect(resumedTables.withLock { $0 } == 2)
        let hallRecords = Dictionary(uniqueKeysWithValues: hallStore.list().matches.map { ($0.state.matchID, $0) })
        for guestStore in [boStore, cyStore] {
            let guestRecord = try #require(guestStore.list().matches.first)
            let hallRecord = try #require(hallRecords[guestRecord.state.matchID])
            #expect(hallRecord.phase == .ended && guestRecord.phase == .ended)
            #expect(hallRecord.state.stateHash == guestRecord.state.stateHash)
        }
    }

    @Test("the hall is listed once under its host's name, joined by that name, and its listing counts the tables in play")
    func listedAndJoinedByName() async throws {
        let lan = InMemoryDirectory()
        let hall = try await TurnBasedLAN.hostTables(Nim.self, as: "Ana", tables: 2, playedBy: .bot(.easy), directory: lan)
        #expect(hall.listedName == "Ana's Nim")
        let listed = try await TurnBasedLAN.games(of: Nim.self, lookingFor: .milliseconds(300), directory: lan)
        #expect(listed.map(\.name) == ["Ana's Nim"] && listed.allSatisfy(\.isJoinable))
        #expect(listed.first?.info?.tables.map { [$0.inPlay, $0.limit] } == [0, 2])
        let bo = try await TurnBasedLAN.join(Nim.self, named: "ana's nim", as: "Bo", directory: lan)
        let names = await bo.participants.map(\.name)
        #expect(names.sorted() == ["Ana", "Bo"])
        // One table taken: still listed, still joinable, and it says so.
        var inPlay: [Int]?
        for _ in 0..<100 where inPlay != [1, 2] {
            let now = try await TurnBasedLAN.games(of: Nim.self, lookingFor: .milliseconds(100), directory: lan)
            inPlay = now.first?.info?.tables.map { [$0.inPlay, $0.limit] }
        }
        #expect(inPlay == [1, 2])
        try await bo.quit()
        await hall.close()
        #expect(lan.advertisedNames.isEmpty, "closed, the hall leaves the LAN's lists")
    }

    @Test("a saved record that is not this game's two-seat host match, or saved tables without a store, are refused with a sentence")
    func badResumes() async throws {
        let state = MatchFixtures.newMatch()
        let record = StoredMatch(state: state, role: .host, localSeat: 0, lastActivity: 0, seatToken: SeatToken.random().bytes)
        let root = NSTemporaryDirectory() + "parlorkit-hall-bad-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        await #expect { _ = try await TurnBasedLAN.hostTables(Nim.self, as: "Ana", tables: 2, playedBy: Self.lastMove, resuming: [record],
                                                              advertise: false, store: Self.store(root, "hall")) } throws: { error in
            "\(error)" == "match \(state.matchID.short) is not a two-seat match of nim this side hosted"
        }
        await #expect { _ = try await TurnBasedLAN.hostTables(Nim.self, as: "Ana", tables: 2, playedBy: Self.lastMove, resuming: [record],
                                                              advertise: false) } throws: { error in
            "\(error)" == "resuming a hall's tables needs the store they were saved in"
        }
    }
}
