import Synchronization
import Testing

@testable import Discovery
import ParlorTestSupport

/// Which game `parlor join NAME` (or the picker) means, over an in-memory LAN.
@Suite struct GameFinderTests {
    /// A picker that answers from a script and remembers what it was offered.
    final class ScriptedPicker: GamePicker {
        private let answers: Mutex<[@Sendable ([ListedGame]) -> PickerChoice]>
        private let offers = Mutex<[[String]]>([])
        init(_ answers: [@Sendable ([ListedGame]) -> PickerChoice]) { self.answers = Mutex(answers) }
        /// The candidates' names offered at each ask.
        var offered: [[String]] { offers.withLock { $0 } }
        func pick(from candidates: [ListedGame], all: [ListedGame]) async -> PickerChoice {
            offers.withLock { $0.append(candidates.map(\.name)) }
            let next = answers.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            return next?(candidates) ?? .cancelled
        }
    }

    let directory = InMemoryDirectory()
    var advertisements: [any ServiceAdvertisement] = []

    init() async throws {
        for (name, state) in [("Ana's Connect Four", ParlorServiceInfo.State.open), ("Anatole's game", .open),
                              ("Bob's game", .playing)] {
            let txt = GameListTests.txt(state: state, taken: state == .open ? 1 : 2)
            advertisements.append(try await directory.advertise(ServiceRegistration(name: name, port: 7477, txt: txt)))
        }
    }

    func finder(timeout: Duration = .milliseconds(300)) -> GameFinder {
        GameFinder(directory: directory, timeout: timeout, assess: GameListTests.assess)
    }

    @Test func anExactNameIgnoringCaseIsJoinedAsSoonAsItIsSeen() async throws {
        let began = ContinuousClock.now
        let game = try await finder(timeout: .seconds(30)).find(name: "ana's connect four", picker: nil)
        #expect(game.name == "Ana's Connect Four")
        #expect(ContinuousClock.now - began < .seconds(10))
    }

    @Test func aUniquePrefixPicksItsGame() async throws {
        let game = try await finder().find(name: "anat", picker: nil)
        #expect(game.name == "Anatole's game")
        #expect(game.service.port == 7477)
    }

    @Test func anAmbiguousPrefixNamesEveryMatchingGameWithoutAPicker() async throws {
        let error = await #expect(throws: GameSearchError.self) { try await finder().find(name: "ana", picker: nil) }
        guard case .ambiguous(let name, let games)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(name == "ana")
        #expect(games.map(\.name) == ["Ana's Connect Four", "Anatole's game"])
    }

    @Test func anAmbiguousPrefixIsOfferedToThePickerJoinableOnly() async throws {
        let playing = try await directory.advertise(
            ServiceRegistration(name: "Ana busy", port: 7478, txt: GameListTests.txt(state: .playing, taken: 2)))
        let picker = ScriptedPicker([{ .chosen($0[1]) }])
        let game = try await finder().find(name: "ana", picker: picker)
        #expect(game.name == "Anatole's game")
        #expect(picker.offered == [["Ana's Connect Four", "Anatole's game"]])
        withExtendedLifetime(playing) {}
    }

    @Test func aNamedGameThatCannotBeJoinedSaysWhy() async throws {
        let error = await #expect(throws: GameSearchError.self) { try await finder().find(name: "Bob's game", picker: nil) }
        guard case .notJoinable(let game, let reason)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(game.name == "Bob's game")
        #expect(reason == .alreadyPlaying)
    }

    @Test func anUnknownNameListsWhatWasFound() async throws {
        let error = await #expect(throws: GameSearchError.self) { try await finder().find(name: "Cleo", picker: nil) }
        guard case .notFound(let name, let seen)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(name == "Cleo")
        #expect(seen.map(\.name) == ["Ana's Connect Four", "Anatole's game", "Bob's game"])
    }

    @Test func noNameOffersEveryJoinableGame() async throws {
        let picker = ScriptedPicker([{ .chosen($0[0]) }])
        let game = try await finder().find(name: nil, picker: picker)
        #expect(game.name == "Ana's Connect Four")
        #expect(picker.offered == [["Ana's Connect Four", "Anatole's game"]])
    }

    /// Asks to look again the first time, after a game has appeared; then takes the first game offered.
    final class LookAgainPicker: GamePicker {
        let directory: InMemoryDirectory
        private let state = Mutex<(offers: [[String]], advertisement: (any ServiceAdvertisement)?)>(([], nil))
        init(directory: InMemoryDirectory) { self.directory = directory }
        var offered: [[String]] { state.withLock { $0.offers } }
        func pick(from candidates: [ListedGame], all: [ListedGame]) async -> PickerChoice {
            let first = state.withLock { state in
                state.offers.append(candidates.map(\.name))
                return state.offers.count == 1
            }
            guard first else { return candidates.first.map { .chosen($0) } ?? .cancelled }
            let advertisement = try? await directory.advertise(
                ServiceRegistration(name: "Zoe's game", port: 7479, txt: GameListTests.txt()))
            state.withLock { $0.advertisement = advertisement }
            return .lookAgain
        }
    }

    @Test func aPickerThatLooksAgainSeesTheNewList() async throws {
        let directory = InMemoryDirectory()
        let finder = GameFinder(directory: directory, timeout: .milliseconds(200), assess: GameListTests.assess)
        let picker = LookAgainPicker(directory: directory)
        let game = try await finder.find(name: nil, picker: picker)
        #expect(game.name == "Zoe's game")
        #expect(picker.offered == [[], ["Zoe's game"]])
    }

    @Test func choosingNothingJoinsNothing() async throws {
        let error = await #expect(throws: GameSearchError.self) {
            try await finder().find(name: nil, picker: ScriptedPicker([{ _ in .cancelled }]))
        }
        guard case .cancelled? = error else { Issue.record("\(String(describing: error))"); return }
    }

    @Test func noNameAndNoPickerIsRefused() async throws {
        let error = await #expect(throws: GameSearchError.self) { try await finder().find(name: nil, picker: nil) }
        guard case .noName? = error else { Issue.record("\(String(describing: error))"); return }
    }

    @Test func aFailedBrowseSaysWhatWasLookedFor() async throws {
        directory.simulateFailure(.daemonUnavailable(operation: "browse", code: -65537))
        let error = await #expect(throws: GameSearchError.self) { try await finder().find(name: "Ana", picker: nil) }
        guard case .browseFailed(.daemonUnavailable, let name)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(name == "Ana")
    }

    @Test func aPrefixWaitsTheWholeLookForAnotherMatch() async throws {
        // "Anatole's game" alone would match "an"; a later "Annie's game" must make it ambiguous.
        let late = Task {
            try await Task.sleep(for: .milliseconds(100))
            return try await directory.advertise(ServiceRegistration(name: "Annie's game", port: 7480, txt: GameListTests.txt()))
        }
        let error = await #expect(throws: GameSearchError.self) {
            try await finder(timeout: .milliseconds(1500)).find(name: "an", picker: nil)
        }
        _ = try await late.value
        guard case .ambiguous(_, let games)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(games.map(\.name).contains("Annie's game"))
    }
}
