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

    /// How long the names must stay unchanged before a unique prefix is taken
    /// (avahi's compatibility library does not pass on "all for now").
    public static let quietTime: Duration = .milliseconds(400)

    /// How long a prefix must stay the only match before it is taken while
    /// other names still trickle in (a crowded LAN whose answers come late
    /// never goes quiet; the join must not wait for all of them).
    public static let uniqueTime: Duration = .milliseconds(700)

    /// Finds the one joinable game `name` picks out, resolving only that game.
    ///
    /// The names on the LAN are browsed without resolving any of them; an
    /// exact name (ignoring case) is taken as soon as it is seen, a prefix as
    /// soon as it is the only match and no new name has come for
    /// `quietTime`, or it has been the only match for `uniqueTime`. The one
    /// match is resolved (its TXT record, port and addresses) from the
    /// moment it is the only one, while the names settle, tried again until
    /// `timeout`. With a `picker`, several matches (or no name at all) are
    /// offered to choose from instead of failing; only joinable ones can be
    /// chosen.
    /// - Throws: `GameSearchError`, saying why no game was chosen.
    public func find(name: String?, picker: (any GamePicker)?) async throws(GameSearchError) -> ListedGame {
        if let name {
            switch try await lookUp(name: name) {
            case .one(let instance, let resolving):
                return try await resolveGame(instance, name: name, resolving: resolving)
            case .several(let instances) where picker == nil:
                throw .ambiguous(name: name, instances.map(unresolved).sorted { $0.name.lowercased() < $1.name.lowercased() })
            case .none(let seen):
                throw .notFound(name: name, seen: seen.map(unresolved).sorted { $0.name.lowercased() < $1.name.lowercased() })
            case .several:
                break
            }
        }
        var list = try await collect(name: name)
        while true {
            let candidates: [ListedGame]
            if let name {
                switch list.match(name) {
                case .exact(let game), .uniquePrefix(let game):
                    if let reason = game.assessment.reason { throw .notJoinable(game, reason) }
                    return try await withAddresses(game, name: name)
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
                return try await withAddresses(game, name: name)
            case .lookAgain:
                list = try await collect(name: nil)
            case .cancelled:
                throw .cancelled
            }
        }
    }

    /// One game's resolve, started while the names settle.
    typealias Resolving = Task<Result<DiscoveredService, DiscoveryError>, Never>

    /// What a typed name picks out of the names on the LAN.
    enum NameLookup {
        /// One instance, and its resolve if it was started while the names settled.
        case one(ServiceInstance, resolving: Resolving?)
        case several([ServiceInstance])
        case none(seen: [ServiceInstance])
    }

    /// Browses names only until `name` picks out one instance (see `find`), or `timeout`.
    func lookUp(name: String) async throws(GameSearchError) -> NameLookup {
        enum Input: Sendable {
            case event(BrowseEvent)
            case quiet(Int)
            case unique(String)
            case deadline
        }
        let lowered = name.lowercased()
        let events = directory.browseNames(type: parlorServiceType)
        let (inputs, feed) = AsyncStream.makeStream(of: Input.self)
        let reader = Task {
            for await event in events { feed.yield(.event(event)) }
        }
        let timeout = self.timeout
        let quietTime = Self.quietTime
        let uniqueTime = Self.uniqueTime
        let deadline = Task {
            try? await Task.sleep(for: timeout)
            feed.yield(.deadline)
        }
        var quiet: Task<Void, Never>?
        var generation = 0
        func restartQuiet() {
            quiet?.cancel()
            generation += 1
            let current = generation
            quiet = Task {
                try? await Task.sleep(for: quietTime)
                if !Task.isCancelled { feed.yield(.quiet(current)) }
            }
        }
        // The only match so far: its resolve runs, and its clock for `uniqueTime`.
        var only: (key: String, resolving: Resolving, clock: Task<Void, Never>)?
        let directory = self.directory
        func dropOnly() {
            only?.resolving.cancel()
            only?.clock.cancel()
            only = nil
        }
        defer {
            reader.cancel()
            deadline.cancel()
            quiet?.cancel()
            dropOnly()
            feed.finish()
        }
        restartQuiet()
        var names: [String: ServiceInstance] = [:]
        func matches() -> [ServiceInstance] {
            names.filter { $0.key.hasPrefix(lowered) }.map(\.value)
        }
        /// Follows the matches: one alone is resolved and timed from now; any other drops that.
        func matchesChanged() {
            let found = matches()
            guard found.count == 1 else { return dropOnly() }
            let key = found[0].name.lowercased()
            guard only?.key != key else { return }
            dropOnly()
            let instance = found[0]
            let resolving = Resolving {
                do throws(DiscoveryError) { return .success(try await directory.resolve(instance, within: timeout)) } catch {
                    return .failure(error)
                }
            }
            let clock = Task {
                try? await Task.sleep(for: uniqueTime)
                if !Task.isCancelled { feed.yield(.unique(key)) }
            }
            only = (key, resolving, clock)
        }
        /// The one match, handing its resolve (if any) over to the caller.
        func takeOne(_ instance: ServiceInstance) -> NameLookup {
            guard let taken = only, taken.key == instance.name.lowercased() else { return .one(instance, resolving: nil) }
            taken.clock.cancel()
            only = nil
            return .one(instance, resolving: taken.resolving)
        }
        for await input in inputs {
            switch input {
            case .event(.found(let service)), .event(.updated(let service)):
                let key = service.name.lowercased()
                guard names[key] == nil else { continue }
                names[key] = service.instance
                if key == lowered { return takeOne(service.instance) }
                restartQuiet()
                if key.hasPrefix(lowered) { matchesChanged() }
            case .event(.lost(let instance)):
                let key = instance.name.lowercased()
                names[key] = nil
                if key.hasPrefix(lowered) { matchesChanged() }
            case .event(.failed(let error)):
                throw .browseFailed(error, name: name)
            case .event(.refused):
                continue
            case .quiet(let current):
                guard current == generation else { continue }
                let found = matches()
                // Quiet: more names are unlikely to come. A unique prefix is
                // taken now; no match yet may still appear, so that waits.
                if found.count == 1 { return takeOne(found[0]) }
                if found.count > 1 { return .several(found) }
            case .unique(let key):
                // The only match for a while, though other names still come: taken.
                let found = matches()
                if found.count == 1, found[0].name.lowercased() == key { return takeOne(found[0]) }
            case .deadline:
                let found = matches()
                switch found.count {
                case 0: return .none(seen: Array(names.values))
                case 1: return takeOne(found[0])
                default: return .several(found)
                }
            }
        }
        return .none(seen: Array(names.values))
    }

    /// Resolves the one game picked by name (or takes the resolve started
    /// while the names settled) and says whether it can be joined.
    private func resolveGame(_ instance: ServiceInstance, name: String,
                             resolving: Resolving?) async throws(GameSearchError) -> ListedGame {
        let result: Result<DiscoveredService, DiscoveryError>
        if let resolving {
            result = await withTaskCancellationHandler { await resolving.value } onCancel: { resolving.cancel() }
        } else {
            do throws(DiscoveryError) { result = .success(try await directory.resolve(instance, within: timeout)) } catch {
                result = .failure(error)
            }
        }
        let service: DiscoveredService
        switch result {
        case .success(let resolved): service = resolved
        case .failure(let error): throw .browseFailed(error, name: name)
        }
        let game = ListedGame(service: service, assessment: assess(service.txt))
        if let reason = game.assessment.reason { throw .notJoinable(game, reason) }
        return game
    }

    /// The game with its addresses: a browse lists games before their
    /// addresses come, and a join needs them (never the system resolver).
    private func withAddresses(_ game: ListedGame, name: String?) async throws(GameSearchError) -> ListedGame {
        guard game.service.addresses.isEmpty else { return game }
        do {
            let service = try await directory.resolve(game.service.instance, within: timeout)
            return ListedGame(service: service, assessment: assess(service.txt))
        } catch {
            throw .browseFailed(error, name: name ?? game.name)
        }
    }

    /// A name seen but not resolved, for messages that list names.
    private func unresolved(_ instance: ServiceInstance) -> ListedGame {
        ListedGame(
            service: DiscoveredService(instance: instance, hostTarget: "", port: 0, interfaceIndex: 0, txt: TXTRecord(),
                                       addresses: []),
            assessment: assess(TXTRecord()))
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
