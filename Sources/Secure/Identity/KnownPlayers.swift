/// A calendar date (`YYYY-MM-DD`), as the known_players file records first contact.
public struct CalendarDay: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The year (1…9999).
    public let year: Int
    /// The month (1…12).
    public let month: Int
    /// The day of the month (1…31, within the month's length).
    public let day: Int

    /// A date, or nil when the fields do not make one.
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1,
              day <= Self.length(ofMonth: month, in: year)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Reads `YYYY-MM-DD`; nil for anything else.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// `YYYY-MM-DD`.
    public var description: String {
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))"
    }

    /// Chronological order.
    public static func < (left: CalendarDay, right: CalendarDay) -> Bool {
        (left.year, left.month, left.day) < (right.year, right.month, right.day)
    }

    private static func length(ofMonth month: Int, in year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

/// One remembered player: whose key had which fingerprint, since when.
public struct KnownPlayer: Hashable, Sendable {
    /// The fingerprint first seen with `name`.
    public let fingerprint: Fingerprint
    /// The name the player used when first seen.
    public let name: String
    /// The day the player was first seen.
    public let firstSeen: CalendarDay
}

/// What the known players say about a name and a key seen now.
public enum KnownPlayerCheck: Equatable, Sendable {
    /// Neither the key nor the name is known: remember them (trust on first use).
    case new
    /// This key is known; `player` is its record, whose name may differ from the
    /// one used now (the player renamed; the key is what counts).
    case known(KnownPlayer)
    /// The name is known with another key: refuse loudly, naming both
    /// fingerprints and how to accept the new key (forget the old one first).
    case changedKey(old: KnownPlayer)
}

/// Why the known players refused a change.
public enum KnownPlayersError: Error, Equatable, Sendable {
    /// The name is remembered with another key; forget it first.
    case nameHeldByAnotherKey(KnownPlayer)
    /// The name cannot be stored on one line (empty, control characters, or `#` first).
    case unstorableName(String)
}

/// A line of the known_players file that could not be read; kept verbatim.
public struct KnownPlayersProblem: Equatable, Sendable {
    /// Why a line of the file was not understood.
    public enum Reason: Error, Equatable, Sendable {
        /// Fewer than three fields (fingerprint, name, date).
        case missingFields
        /// The first field is not a fingerprint.
        case badFingerprint(FingerprintError)
        /// The last field is not a `YYYY-MM-DD` date.
        case badDate(String)
        /// The same fingerprint on an earlier line; the first one counts.
        case duplicateFingerprint
    }

    /// The 1-based line number.
    public let line: Int
    /// What is wrong with it.
    public let reason: Reason
}

/// The `known_players` file, like SSH's known_hosts: one remembered player per
/// line, as a pure value (parse, decide, change, format; no I/O).
///
///     # comments and blank lines are kept
///     MFRGGZD-FMZTGNB-…-XXXXXXX Bo Jensen 2026-03-14
///
/// A line is the fingerprint (its display form, or any form `Fingerprint.parse`
/// reads), the name (everything between, trimmed, so it may contain spaces),
/// and the day first seen. Names are compared without regard to case, so that
/// "bo" cannot pass for a known "Bo" with another key. Lines that cannot be
/// read are reported with their number and written back unchanged, so a
/// hand edit is never lost.
public struct KnownPlayers: Sendable, Equatable {
    enum Line: Sendable, Equatable {
        case other(String)
        case player(KnownPlayer)
    }

    private var lines: [Line]

    /// Lines that could not be read when parsed (empty after `init()`).
    public let problems: [KnownPlayersProblem]

    /// An empty file.
    public init() {
        lines = []
        problems = []
    }

    /// Reads the file's text; never fails: unreadable lines go to `problems`.
    public init(parsing text: String) {
        var lines: [Line] = []
        var problems: [KnownPlayersProblem] = []
        var seen: Set<Fingerprint> = []
        var rawLines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if rawLines.last?.isEmpty == true { rawLines.removeLast() }
        for (index, raw) in rawLines.enumerated() {
            let content = raw.trimmingWhitespace()
            if content.isEmpty || content.hasPrefix("#") {
                lines.append(.other(String(raw)))
                continue
            }
            switch Self.parsePlayer(content) {
            case .success(let player):
                if seen.contains(player.fingerprint) {
                    problems.append(KnownPlayersProblem(line: index + 1, reason: .duplicateFingerprint))
                    lines.append(.other(String(raw)))
                } else {
                    seen.insert(player.fingerprint)
                    lines.append(.player(player))
                }
            case .failure(let reason):
                problems.append(KnownPlayersProblem(line: index + 1, reason: reason))
                lines.append(.other(String(raw)))
            }
        }
        self.lines = lines
        self.problems = problems
    }

    /// Every remembered player, in file order.
    public var players: [KnownPlayer] {
        lines.compactMap { if case .player(let player) = $0 { player } else { nil } }
    }

    /// The file's text: comments, blank lines and unreadable lines as they were.
    public func formatted() -> String {
        lines.map { line in
            switch line {
            case .other(let text): text
            case .player(let player): "\(player.fingerprint) \(player.name) \(player.firstSeen)"
            }
        }.map { $0 + "\n" }.joined()
    }

    /// What to tell the player about `name` presenting the key `fingerprint`.
    public func check(name: String, fingerprint: Fingerprint) -> KnownPlayerCheck {
        let all = players
        if let known = all.first(where: { $0.fingerprint == fingerprint }) { return .known(known) }
        if let holder = all.first(where: { Self.sameName($0.name, name) }) { return .changedKey(old: holder) }
        return .new
    }

    /// Remembers a player seen for the first time (does nothing when the key is known).
    ///
    /// - Throws: `nameHeldByAnotherKey` when the name is remembered with another
    ///   key (call `forget(name:)` first, after the player agreed),
    ///   `unstorableName` for a name that cannot be written on one line.
    public mutating func remember(name: String, fingerprint: Fingerprint, firstSeen: CalendarDay) throws(KnownPlayersError) {
        let trimmed = String(name.trimmingWhitespace())
        guard !trimmed.isEmpty, !trimmed.hasPrefix("#"),
              !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw .unstorableName(name) }
        switch check(name: trimmed, fingerprint: fingerprint) {
        case .known: return
        case .changedKey(let old): throw .nameHeldByAnotherKey(old)
        case .new: lines.append(.player(KnownPlayer(fingerprint: fingerprint, name: trimmed, firstSeen: firstSeen)))
        }
    }

    /// Forgets every player remembered under `name` (compared without case);
    /// returns those forgotten (`parlor forget-player`).
    @discardableResult
    public mutating func forget(name: String) -> [KnownPlayer] {
        forget { Self.sameName($0.name, name) }
    }

    /// Forgets the player with `fingerprint`; returns it if it was known.
    @discardableResult
    public mutating func forget(fingerprint: Fingerprint) -> KnownPlayer? {
        forget { $0.fingerprint == fingerprint }.first
    }

    private mutating func forget(where matches: (KnownPlayer) -> Bool) -> [KnownPlayer] {
        var forgotten: [KnownPlayer] = []
        lines.removeAll { line in
            guard case .player(let player) = line, matches(player) else { return false }
            forgotten.append(player)
            return true
        }
        return forgotten
    }

    private static func sameName(_ left: String, _ right: String) -> Bool {
        left.trimmingWhitespace().lowercased() == right.trimmingWhitespace().lowercased()
    }

    private static func parsePlayer(_ content: Substring) -> Result<KnownPlayer, KnownPlayersProblem.Reason> {
        guard let firstSpace = content.firstIndex(where: { $0 == " " || $0 == "\t" }),
              let lastSpace = content.lastIndex(where: { $0 == " " || $0 == "\t" }),
              firstSpace < lastSpace
        else { return .failure(.missingFields) }
        let name = content[firstSpace..<lastSpace].trimmingWhitespace()
        guard !name.isEmpty else { return .failure(.missingFields) }
        let fingerprint: Fingerprint
        do throws(FingerprintError) {
            fingerprint = try Fingerprint.parse(String(content[..<firstSpace]))
        } catch {
            return .failure(.badFingerprint(error))
        }
        let dateText = content[content.index(after: lastSpace)...]
        guard let day = CalendarDay(dateText) else { return .failure(.badDate(String(dateText.prefix(20)))) }
        return .success(KnownPlayer(fingerprint: fingerprint, name: String(name), firstSeen: day))
    }
}
