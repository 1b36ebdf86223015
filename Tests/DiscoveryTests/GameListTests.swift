import Testing

@testable import Discovery
import ParlorTestSupport

/// What `parlor browse`, `parlor join NAME` and the lobby list, and what a typed name picks.
@Suite struct GameListTests {
    static let assess: GameList.Assess = { txt in
        ParlorServiceInfo.assess(txt, supportedProtocolVersion: 1, knownGameIDs: ["connect4", "tictactoe"])
    }

    static func txt(
        game: String = "connect4", state: ParlorServiceInfo.State = .open, taken: Int = 1, host: String = "Ana"
    ) -> TXTRecord {
        var info = ParlorServiceInfoTests.sample
        info.gameID = game
        info.state = state
        info.seatsTaken = taken
        info.hostPlayerName = host
        return (try? info.txtRecord()) ?? TXTRecord()
    }

    static func service(_ name: String, txt: TXTRecord = txt(), port: UInt16 = 7477, domain: String = "local.")
        -> DiscoveredService
    {
        DiscoveredService(
            instance: ServiceInstance(name: name, type: "_parlor._tcp.", domain: domain), hostTarget: "hosta.local.",
            port: port, interfaceIndex: 2, txt: txt, addresses: [ServiceAddress(ipv4: (10, 77, 0, 1))])
    }

    static func list(_ services: [DiscoveredService], filter: String? = nil) -> GameList {
        var list = GameList(gameFilter: filter, assess: assess)
        for service in services { list.apply(.found(service)) }
        return list
    }

    @Test func openGamesComeFirstThenPlayingOrFullThenUnjoinable() throws {
        let otherProtocol = try TXTRecord(["pv": "2", "game": "connect4"])
        let list = Self.list([
            Self.service("zed's game", txt: otherProtocol),
            Self.service("Cleo's game", txt: Self.txt(state: .playing, taken: 2)),
            Self.service("bob's game"),
            Self.service("Chess night", txt: Self.txt(game: "chess")),
            Self.service("Ana's game"),
            Self.service("Full house", txt: Self.txt(taken: 2)),
            Self.service("Broken", txt: try TXTRecord(["pv": "1", "game": "connect4"])),
        ])
        #expect(list.games.map(\.name) == [
            "Ana's game", "bob's game",  // open, by name ignoring case
            "Cleo's game", "Full house",  // known game, cannot join now
            "Broken", "Chess night", "zed's game",  // cannot be played by this parlor at all
        ])
        #expect(list.joinable.map(\.name) == ["Ana's game", "bob's game"])
    }

    @Test func unjoinableGamesAreListedWithTheReason() throws {
        let list = Self.list([
            Self.service("New parlor", txt: try TXTRecord(["pv": "2", "game": "connect4"])),
            Self.service("Chess night", txt: Self.txt(game: "chess")),
            Self.service("Busy", txt: Self.txt(state: .playing, taken: 2)),
        ])
        let reasons = Dictionary(uniqueKeysWithValues: list.games.map { ($0.name, $0.assessment.reason?.description) })
        #expect(reasons["New parlor"] == "speaks protocol version 2; this parlor speaks 1 (update this parlor to join it)")
        #expect(reasons["Chess night"] == "unknown game 'chess' (rules version 1); this parlor does not have it")
        #expect(reasons["Busy"] == "already playing")
        // A record from another protocol version still shows which game it is.
        #expect(list.games.first { $0.name == "New parlor" }?.gameID == "connect4")
    }

    @Test func aServiceReportedAgainIsListedOnce() {
        var list = GameList(assess: Self.assess)
        let first = list.apply(.found(Self.service("Ana's game")))
        #expect(first == .added(list.games[0]))
        // The same instance again (another interface, another IP family) changes nothing...
        #expect(list.apply(.found(Self.service("Ana's game"))) == nil)
        // ...and DNS names ignore case, so neither does a report in other capitals.
        list.apply(.found(Self.service("ANA'S GAME")))
        #expect(list.games.count == 1)
        #expect(list.games[0].name == "ANA'S GAME")
    }

    @Test func updatesReplaceAndLossesRemove() {
        var list = Self.list([Self.service("Ana's game"), Self.service("Bob's game")])
        let playing = Self.service("Ana's game", txt: Self.txt(state: .playing, taken: 2))
        guard case .updated(let updated)? = list.apply(.updated(playing)) else {
            Issue.record("expected an update")
            return
        }
        #expect(updated.info?.state == .playing)
        #expect(list.games.map(\.name) == ["Bob's game", "Ana's game"])  // no longer joinable: moves down
        guard case .removed(let removed)? = list.apply(.lost(playing.instance)) else {
            Issue.record("expected a removal")
            return
        }
        #expect(removed.name == "Ana's game")
        #expect(list.games.map(\.name) == ["Bob's game"])
        #expect(list.apply(.lost(playing.instance)) == nil)
    }

    @Test func theGameFilterKeepsOneKindOnly() {
        var list = Self.list(
            [Self.service("Ana's game"), Self.service("Tic", txt: Self.txt(game: "tictactoe"))], filter: "TicTacToe")
        #expect(list.games.map(\.name) == ["Tic"])
        // A listed game that turns into another kind leaves the filtered list.
        #expect(list.apply(.updated(Self.service("Tic"))) != nil)
        #expect(list.isEmpty)
    }

    @Test func endpointsPutIPv6InBracketsWithItsInterface() throws {
        let v6 = try #require(ServiceAddress(bytes: [0xFE, 0x80] + Array(repeating: 0, count: 13) + [1], interfaceIndex: 1))
        var service = Self.service("Ana's game", port: 4000)
        service.addresses = [ServiceAddress(ipv4: (10, 77, 0, 1)), v6]
        let game = ListedGame(service: service, assessment: Self.assess(service.txt))
        #expect(game.endpoints == ["10.77.0.1:4000", "[fe80::1%lo]:4000"])
    }

    // MARK: - Names

    static let names = list([
        service("Ana's Connect Four"), service("Ana's Tic-tac-toe", txt: txt(game: "tictactoe")),
        service("Bob's Connect Four"), service("Ana"),
        service("Cleo's game", txt: txt(state: .playing, taken: 2)),
    ])

    @Test(arguments: [
        ("Ana's Connect Four", "Ana's Connect Four"),
        ("ana's connect four", "Ana's Connect Four"),
        ("ANA", "Ana"),  // exact beats being a prefix of two others
    ])
    func exactNamesIgnoringCase(query: String, expected: String) {
        guard case .exact(let game) = Self.names.match(query) else {
            Issue.record("expected an exact match for \(query)")
            return
        }
        #expect(game.name == expected)
    }

    @Test(arguments: [("bob", "Bob's Connect Four"), ("Ana's c", "Ana's Connect Four"), ("ana's t", "Ana's Tic-tac-toe")])
    func uniquePrefixesIgnoringCase(query: String, expected: String) {
        guard case .uniquePrefix(let game) = Self.names.match(query) else {
            Issue.record("expected a unique prefix match for \(query)")
            return
        }
        #expect(game.name == expected)
    }

    @Test func aPrefixOfSeveralIsAmbiguousAndListsThemInOrder() {
        #expect(Self.names.match("Ana's").names == ["Ana's Connect Four", "Ana's Tic-tac-toe"])
        #expect(Self.names.match("a").names == ["Ana", "Ana's Connect Four", "Ana's Tic-tac-toe"])
    }

    @Test func anUnknownNameMatchesNothing() {
        #expect(Self.names.match("Dora") == .none)
        #expect(Self.names.match("Ana's Connect Four!") == .none)
    }

    @Test func anUnjoinableGameIsStillMatchedSoItsReasonCanBeShown() {
        guard case .uniquePrefix(let game) = Self.names.match("cleo") else {
            Issue.record("expected cleo's game")
            return
        }
        #expect(game.assessment.reason == .alreadyPlaying)
    }

    @Test func namesFoundThroughAnInMemoryNetwork() async throws {
        let hostA = InMemoryDirectory(hostName: "hosta", addresses: [ServiceAddress(ipv4: (10, 77, 0, 1))])
        let hostB = hostA.host(named: "hostb", addresses: [ServiceAddress(ipv4: (10, 77, 0, 2))])
        let first = try await hostA.advertise(ServiceRegistration(name: "Ana's game", port: 4000, txt: Self.txt()))
        let clash = try await hostB.advertise(ServiceRegistration(name: "Ana's game", port: 4001, txt: Self.txt()))
        let other = try await hostB.advertise(
            ServiceRegistration(name: "Bob's game", port: 4002, txt: Self.txt(host: "Bob")))
        var list = GameList(assess: Self.assess)
        var events = hostA.browse(type: parlorServiceType).makeAsyncIterator()
        for _ in 0..<3 {
            if let event = await events.next() { list.apply(event) }
        }
        #expect(list.games.map(\.name) == ["Ana's game", "Ana's game #2", "Bob's game"])
        guard case .exact(let exact) = list.match("ana's game") else {
            Issue.record("expected the exact name to win over 'Ana's game #2'")
            return
        }
        #expect(exact.service.port == 4000)
        #expect(list.match("ana's").names == ["Ana's game", "Ana's game #2"])
        guard case .uniquePrefix(let bob) = list.match("b") else {
            Issue.record("expected Bob's game")
            return
        }
        #expect(bob.endpoints == ["10.77.0.2:4002"])

        // The host withdraws: the name no longer matches.
        await other.withdraw()
        if let event = await events.next() { list.apply(event) }
        #expect(list.match("b") == .none)
        withExtendedLifetime((first, clash)) {}
    }
}

extension GameNameMatch {
    /// The matched names, for assertions.
    var names: [String] {
        switch self {
        case .exact(let game), .uniquePrefix(let game): return [game.name]
        case .ambiguous(let games): return games.map(\.name)
        case .none: return []
        }
    }
}
