import Discovery
import ParlorKit
import ParlorTestSupport
import TerminalUI
import Session
import Testing
@testable import ParlorCLI

/// `parlor browse` and the pickers: how many watch a game, and watching offered for one that cannot be joined.
struct SpectatorListingTests {
    static func listed(_ state: ParlorServiceInfo.State, spectators: (Int, Int)?, name: String = "Ana's Connect Four",
                       matchID: String = "") throws -> ListedGame {
        var info = ParlorServiceInfo(protocolVersion: 1, gameID: "connect4", rulesVersion: 1, seatsTaken: 2, seatsTotal: 2, state: state,
                                     matchID: matchID, needsPasscode: false, appVersion: "0.2.0", hostPlayerName: "Ana")
        info.spectators = spectators
        let txt = try info.txtRecord()
        let service = DiscoveredService(
            instance: ServiceInstance(name: name, type: "_parlor._tcp.", domain: "local."),
            hostTarget: "hosta.local.", port: 7490, interfaceIndex: 3, txt: txt,
            addresses: [ServiceAddress(ipv4: (10, 77, 0, 1), interfaceIndex: 3)])
        return ListedGame(service: service, assessment: Listing.assess(txt))
    }

    @Test func aGameInProgressSaysHowManyWatchAndHowToWatchIt() throws {
        let row = GameListing.row(try Self.listed(.playing, spectators: (2, 16)))
        #expect(row.state == "playing, 2 watching")
        #expect(row.note == "cannot join: already playing; watch it: parlor watch \"Ana's Connect Four\"")
        let json = GameListing.json(try Self.listed(.playing, spectators: (2, 16)), event: "game")
        guard case .object(let fields) = json else { Issue.record("not an object"); return }
        #expect(fields.contains { $0.0 == "spectatorsWatching" && $0.1 == JSONValue.int(2) })
    }

    @Test func aHostThatTakesNoSpectatorsIsNotOfferedToWatch() throws {
        let row = GameListing.row(try Self.listed(.playing, spectators: (0, 0)))
        #expect(row.state == "playing")
        #expect(row.note == "cannot join: already playing")
    }
}

/// The lobby never offers your own game to join: one this process advertises, or one whose match is yours.
struct OwnGamesTests {
    @Test func theLobbyLeavesOutTheGameHostedHereAndYourOwnMatches() throws {
        let hostedHere = try SpectatorListingTests.listed(.open, spectators: nil, name: "Bo's Connect Four")
        let yourMatch = try SpectatorListingTests.listed(.playing, spectators: nil, name: "Cy's Connect Four", matchID: "aa11bb22")
        let someoneElse = try SpectatorListingTests.listed(.open, spectators: nil, name: "Di's Connect Four")
        let shown = Lobby.othersGames([hostedHere, yourMatch, someoneElse], ownNames: ["Bo's Connect Four"], ownMatches: ["aa11bb22"])
        #expect(shown.map(\.name) == ["Di's Connect Four"])
    }

    /// A game whose listing was refused at first (the daemon away) is listed
    /// later, here as "#2" because another host took the name meanwhile: from
    /// then on the lobby leaves it out, and it never hid the other host's game.
    @Test func aGameListedLaterUnderAnotherNameIsLeftOutFromThenOn() async throws {
        let network = InMemoryDirectory(hostName: "hostb")
        let elsewhere = try await network.advertise(ServiceRegistration(name: "Eve's Connect Four", port: 7000))
        let here = network.host(named: "hosta")
        network.simulateFailure(.daemonUnavailable(operation: "DNSServiceRegister", code: -65537))
        let info = ParlorServiceInfo(protocolVersion: 1, gameID: "connect4", rulesVersion: 1, seatsTaken: 1, seatsTotal: 2,
                                     state: .open, matchID: "", needsPasscode: false, appVersion: "0.2.0", hostPlayerName: "Eve")
        let advertised = await HostedListing.advertise(info, as: "Eve's Connect Four", port: 7477, in: here,
                                                       retryAfter: .milliseconds(20))
        #expect(advertised.isPending)
        let listing = LANListing(advertisement: advertised.advertisement)
        let othersGame = try SpectatorListingTests.listed(.open, spectators: nil, name: "Eve's Connect Four")
        let ownGame = try SpectatorListingTests.listed(.open, spectators: nil, name: "Eve's Connect Four #2")
        #expect(Lobby.othersGames([othersGame], ownNames: OwnListings.names, ownMatches: []).count == 1,
                "while ours is not listed, the other host's game of the same name is not ours")

        var later = advertised.listedLater.makeAsyncIterator()
        network.simulateFailure(nil)
        #expect(await later.next() == "Eve's Connect Four #2")
        #expect(Lobby.othersGames([othersGame, ownGame], ownNames: OwnListings.names, ownMatches: []).map(\.name)
                == ["Eve's Connect Four"])

        await listing.withdraw()
        #expect(!OwnListings.names.contains("Eve's Connect Four #2"))
        await elsewhere.withdraw()
    }
}

/// The lobby's `w`: watch the selected game, or say why it cannot be watched.
struct SpectatorLobbyTests {
    @Test func wWatchesTheSelectedGameInProgressAndSaysWhyWhenItCannot() throws {
        var model = ParlorLobbyModel(defaultName: "Ana")
        let playing = try SpectatorListingTests.listed(.playing, spectators: (0, 16))
        model.show(games: [ParlorLobbyModel.Game(playing)])
        #expect(model.handle(.enter) == nil, "a game in progress cannot be joined")
        #expect(model.handle(.character("w")).map { LobbyChoice($0, games: [playing]) } == .watch(playing))
        var closed = ParlorLobbyModel(defaultName: "Ana")
        closed.show(games: [ParlorLobbyModel.Game(try SpectatorListingTests.listed(.playing, spectators: (0, 0)))])
        #expect(closed.handle(.character("w")) == nil)
        #expect(closed.lines(width: 200).contains { $0.contains("cannot be watched: takes no spectators") }, "\(closed.lines(width: 200))")
    }
}
