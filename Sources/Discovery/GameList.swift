// What `parlor browse`, `parlor join NAME` and the lobby show: the services
// a browse has seen, one entry per instance, each with whether this parlor
// can join it, ordered so the games a person can join come first. Pure:
// it is fed BrowseEvents and never touches the network.

/// One parlor service as a list shows it: where it is, what it says, and whether it can be joined.
public struct ListedGame: Sendable, Hashable {
    /// The resolved service (name, host, port, addresses, TXT).
    public var service: DiscoveredService
    /// Its facts, when readable, and why it cannot be joined, if it cannot.
    public var assessment: ParlorServiceAssessment

    /// Describes a service and what the caller made of its TXT record.
    public init(service: DiscoveredService, assessment: ParlorServiceAssessment) {
        self.service = service
        self.assessment = assessment
    }

    /// The instance name ("Ana's Connect Four").
    public var name: String { service.name }
    /// The facts from the TXT record; nil when unreadable or from another protocol version.
    public var info: ParlorServiceInfo? { assessment.info }
    /// True when this parlor can join it now.
    public var isJoinable: Bool { assessment.isJoinable }
    /// The game id, even from a record this parlor cannot otherwise read.
    public var gameID: String? { assessment.info?.gameID ?? service.txt["game"] }

    /// Where it sorts: 0 joinable, 1 a known game that is playing or full, 2 one this parlor cannot play at all.
    public var rank: Int {
        switch assessment.reason {
        case nil: return 0
        case .alreadyPlaying?, .full?, .noSpectators?, .spectatorsFull?: return 1
        case .protocolVersion?, .unreadableRecord?, .unknownGame?: return 2
        }
    }

    /// "10.77.0.1:7477", "[fe80::1%eth0]:7477", one per address, IPv4 first.
    public var endpoints: [String] {
        service.addresses.map { address in
            address.family == .ipv6 ? "[\(address.host)]:\(service.port)" : "\(address.host):\(service.port)"
        }
    }
}

/// What a typed name picks out of a list.
public enum GameNameMatch: Sendable, Hashable {
    /// The name, ignoring case, is exactly one game's name.
    case exact(ListedGame)
    /// The name is a case-insensitive prefix of exactly one game's name.
    case uniquePrefix(ListedGame)
    /// Several games start with the name; sorted as the list is.
    case ambiguous([ListedGame])
    /// No game's name starts with it.
    case none
}

/// The games a browse has seen so far, de-duplicated and ordered.
///
/// Feed it every `BrowseEvent` with `apply(_:)`. Each instance (name, type
/// and domain, names compared without regard to case as DNS does) appears
/// once, however many times and on however many interfaces it is reported.
public struct GameList: Sendable {
    /// Decides, for a TXT record, what the game is and whether this parlor can join it.
    public typealias Assess = @Sendable (TXTRecord) -> ParlorServiceAssessment

    /// What one event did to the list, for callers that print changes.
    public enum Change: Sendable, Hashable {
        /// A game appeared.
        case added(ListedGame)
        /// A listed game's TXT record, port or addresses changed.
        case updated(ListedGame)
        /// A listed game went away.
        case removed(ListedGame)
    }

    private struct Key: Hashable {
        var name: String
        var type: String
        var domain: String

        init(_ instance: ServiceInstance) {
            name = instance.name.lowercased()
            type = instance.type.lowercased()
            domain = instance.domain.lowercased()
        }
    }

    private let assess: Assess
    private let gameFilter: String?
    private var entries: [Key: ListedGame] = [:]

    /// An empty list. With `gameFilter`, only games of that id are kept.
    public init(gameFilter: String? = nil, assess: @escaping Assess) {
        self.gameFilter = gameFilter?.lowercased()
        self.assess = assess
    }

    /// Every listed game: joinable first, then playing or full, then the
    /// ones this parlor cannot play; by name (ignoring case) within each.
    public var games: [ListedGame] {
        entries.values.sorted(by: Self.listOrder)
    }

    /// The games that can be joined now, in list order.
    public var joinable: [ListedGame] { games.filter(\.isJoinable) }

    /// Whether the list is empty.
    public var isEmpty: Bool { entries.isEmpty }

    /// Applies a browse event; returns what changed, or nil when nothing a user sees did
    /// (a failure, a game filtered out, a repeat, the loss of a game never listed).
    @discardableResult
    public mutating func apply(_ event: BrowseEvent) -> Change? {
        switch event {
        case .found(let service), .updated(let service):
            let key = Key(service.instance)
            let listed = ListedGame(service: service, assessment: assess(service.txt))
            guard gameFilter == nil || listed.gameID?.lowercased() == gameFilter else {
                // A game that changed into another kind leaves a filtered list.
                return entries.removeValue(forKey: key).map { .removed($0) }
            }
            let previous = entries.updateValue(listed, forKey: key)
            guard let previous else { return .added(listed) }
            return previous == listed ? nil : .updated(listed)
        case .lost(let instance):
            return entries.removeValue(forKey: Key(instance)).map { .removed($0) }
        case .failed, .refused:
            return nil
        }
    }

    /// Which game `query` names: an exact name (ignoring case), else a
    /// unique case-insensitive prefix. Unjoinable games count too, so
    /// that a person who names one learns why it cannot be joined.
    public func match(_ query: String) -> GameNameMatch {
        let lowered = query.lowercased()
        let all = games
        let exact = all.filter { $0.name.lowercased() == lowered }
        // DNS-SD names are unique ignoring case, but a list can briefly
        // hold two that differ only in case: the one typed exactly wins.
        if let precise = exact.first(where: { $0.name == query }) ?? (exact.count == 1 ? exact.first : nil) {
            return .exact(precise)
        }
        if exact.count > 1 { return .ambiguous(exact) }
        let prefixed = all.filter { $0.name.lowercased().hasPrefix(lowered) }
        switch prefixed.count {
        case 0: return .none
        case 1: return .uniquePrefix(prefixed[0])
        default: return .ambiguous(prefixed)
        }
    }

    private static func listOrder(_ lhs: ListedGame, _ rhs: ListedGame) -> Bool {
        if lhs.rank != rhs.rank { return lhs.rank < rhs.rank }
        let left = lhs.name.lowercased()
        let right = rhs.name.lowercased()
        if left != right { return left < right }
        if lhs.name != rhs.name { return lhs.name < rhs.name }
        return lhs.service.instance.domain < rhs.service.instance.domain
    }
}
