// `parlor join NAME` and `parlor join` with no target: which advertised game
// a typed name (or a person's pick) means. Browsing and matching live here;
// asking the person is the caller's (a `GamePicker`), and so is connecting.

/// Why no game was found for a name; ParlorCLI says it in words.
public enum GameSearchError: Error, Sendable {
    /// Browsing failed; `name` is what was being looked for (nil: any game).
    case browseFailed(DiscoveryError, name: String?)
    /// The name picks out one game, and this parlor cannot join it.
    case notJoinable(ListedGame, UnjoinableReason)
    /// Several games match the name, and none of them could be picked.
    case ambiguous(name: String, [ListedGame])
    /// No game's name starts with `name`; `seen` is every game found.
    case notFound(name: String, seen: [ListedGame])
    /// No name was given, and there is no picker to choose with.
    case noName
    /// The picker chose nothing.
    case cancelled
}

/// What a player did when offered games to join.
public enum PickerChoice: Sendable {
    /// This game.
    case chosen(ListedGame)
    /// Browse again and offer the new list.
    case lookAgain
    /// Join nothing.
    case cancelled
}

/// Offers games to join and returns the player's choice (a numbered list on a terminal, a script in tests).
public protocol GamePicker: Sendable {
    /// `candidates` can be chosen; `all` (which includes them) is shown for context.
    func pick(from candidates: [ListedGame], all: [ListedGame]) async -> PickerChoice
}

/// Finds the one advertised parlor game a name means, by browsing a `ServiceDirectory`.
public struct GameFinder: Sendable {
    /// How long `parlor join` looks before deciding what a name matches.
    public static let defaultTimeout: Duration = .seconds(3)

    /// Where to browse.
    public var directory: any ServiceDirectory
    /// How long one look lasts.
    public var timeout: Duration
    /// What each TXT record means to this parlor (its protocol version and games).
    public var assess: GameList.Assess

    /// A finder browsing `directory` for up to `timeout` per look.
    public init(directory: any ServiceDirectory, timeout: Duration = defaultTimeout, assess: @escaping GameList.Assess) {
        self.directory = directory
        self.timeout = timeout
        self.assess = assess
    }

    /// Browses for up to `timeout` and returns the one joinable game `name` picks out.
    ///
    /// An exact name (ignoring case) returns as soon as it is seen; a prefix
    /// waits the whole time, since another game with the same prefix may
    /// still answer. With a `picker`, several matches (or no name at all)
    /// are offered to choose from instead of failing; only joinable ones can be chosen.
    /// - Throws: `GameSearchError`, saying why no game was chosen.
    public func find(name: String?, picker: (any GamePicker)?) async throws(GameSearchError) -> ListedGame {
        var list = try await collect(name: name)
        while true {
            let candidates: [ListedGame]
            if let name {
                switch list.match(name) {
                case .exact(let game), .uniquePrefix(let game):
                    if let reason = game.assessment.reason { throw .notJoinable(game, reason) }
                    return game
                case .ambiguous(let games):
                    candidates = games.filter(\.isJoinable)
                    guard picker != nil, !candidates.isEmpty else { throw .ambiguous(name: name, games) }
                case .none:
                    throw .notFound(name: name, seen: list.games)
                }
            } else {
                candidates = list.joinable
            }
            guard let picker else { throw .noName }
            switch await picker.pick(from: candidates, all: list.games) {
            case .chosen(let game):
                return game
            case .lookAgain:
                list = try await collect(name: nil)
            case .cancelled:
                throw .cancelled
            }
        }
    }

    /// Browses until `timeout`, or until a game called exactly `name` (ignoring case) appears.
    /// - Throws: `.browseFailed` when the directory cannot browse.
    public func collect(name: String?) async throws(GameSearchError) -> GameList {
        let events = directory.browse(type: parlorServiceType)
        let lowered = name?.lowercased()
        let assess = self.assess
        let timeout = self.timeout
        let outcome = await withTaskGroup(of: Result<GameList, DiscoveryError>?.self) { group in
            group.addTask {
                var list = GameList(assess: assess)
                // Ends when the deadline below cancels this task: the list holds what was seen by then.
                for await event in events {
                    if case .failed(let error) = event { return .failure(error) }
                    list.apply(event)
                    if case .found(let service) = event, let lowered, service.name.lowercased() == lowered {
                        return .success(list)
                    }
                }
                return .success(list)
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            var outcome: Result<GameList, DiscoveryError>?
            for await finished in group {
                group.cancelAll()
                if let finished { outcome = finished }
            }
            return outcome
        }
        switch outcome {
        case .success(let list)?: return list
        case .failure(let error)?: throw .browseFailed(error, name: name)
        case nil: return GameList(assess: assess)
        }
    }
}
