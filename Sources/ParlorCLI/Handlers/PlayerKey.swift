import Foundation
import Secure
import Session
import Store
import Synchronization
import TerminalUI

/// The player's identity key (issue 38): made on first use in the data
/// directory, read by every command that connects. The one place that decides
/// where it lives and what a problem with it means for the exit status.
enum PlayerKey {
    /// `$XDG_DATA_HOME/parlor/player.key` (mode 0600; `identity` beside it holds the older player id).
    static var path: String { LocalData.directory + "/player.key" }

    /// Loaded once per process: every connection of this run proves the same key.
    private static let loaded: Result<IdentityKeyPair, CommandFailure> = loadOrCreate(at: path, directory: LocalData.directory)

    /// The key, or the reason it cannot be used (exit 65 for a damaged or exposed file, 74 for one that cannot be read or written).
    static func current() throws(CommandFailure) -> IdentityKeyPair {
        try loaded.get()
    }

    /// Reads the key at `path`, or makes one there when there is none.
    static func loadOrCreate(at path: String, directory: String) -> Result<IdentityKeyPair, CommandFailure> {
        do {
            return .success(try IdentityFile.read(from: path))
        } catch .notFound {
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                     attributes: [.posixPermissions: 0o700])
            do {
                let key = try IdentityKeyPair.generate()
                try IdentityFile.write(key, to: path)
                return .success(key)
            } catch let error as KeyFileError {
                return .failure(failure(error))
            } catch {
                return .failure(CommandFailure("could not make your player key: \(error)", exitCode: .internalError))
            }
        } catch {
            return .failure(failure(error))
        }
    }

    /// The sentence (Secure's) and exit status for a key file that cannot be used.
    static func failure(_ error: KeyFileError) -> CommandFailure {
        switch error {
        case .notFound, .unreadable, .unwritable: CommandFailure(error.description, exitCode: .ioError)
        case .notAFile, .loosePermissions, .damaged: CommandFailure(error.description, exitCode: .dataError)
        }
    }
}

/// How this process's connections are set up: protocol 3's channel with the
/// player's key, or clear frames only where `--allow-unencrypted` lets a peer in.
enum LocalChannel {
    /// The host's side: every guest encrypted, or (with `allowClear`) a protocol-2 guest admitted in clear and announced by `onClearGuest`.
    static func hosting(allowClear: Bool = false, onClearGuest: @escaping @Sendable (String) -> Void = { _ in }) throws(CommandFailure) -> ChannelSecurity {
        var options = SecureChannelOptions(identity: try PlayerKey.current())
        options.allowClearGuests = allowClear
        options.onClearGuest = onClearGuest
        return .encrypted(options)
    }

    /// The connecting side: always encrypted (a guest falls back to clear only
    /// when `join --allow-unencrypted` says so, and then by a new connection).
    /// Resuming: `name` is the host's saved name and `key` the key the match was played with (its record, format 5):
    /// any other key is refused in the handshake, before HELLO and the seat token leave.
    static func connecting(expectingHost name: String? = nil, key saved: PlayerPublicKey? = nil) throws(CommandFailure) -> ChannelSecurity {
        var options = SecureChannelOptions(identity: try PlayerKey.current())
        if let name {
            options.verifyPeer = { key in
                if let saved, saved != key {
                    return "refusing the host: this is not the \(Text.escapingUnprintable(name)) this match was played with "
                        + "(its key was \(saved.fingerprint); this host's is \(key.fingerprint)); someone may be pretending to be them"
                }
                guard case .changed(let old) = KnownPeople.check(name: name, key: key) else { return nil }
                return KnownPeople.hostRefusal(name: name, key: key, old: old)
            }
        }
        return .encrypted(options)
    }

    /// The sentence both screens show for a match in clear.
    static let notPrivate = "This match is not private: the other side speaks parlor protocol 2 or older, so moves, talk and names cross the network in clear."
}

/// A guest's choice of channel for every connection to one host, shared by its
/// dialers: encrypted, until `join --allow-unencrypted` falls back to clear.
final class GuestChannel: Sendable {
    private let chosen: Mutex<ChannelSecurity>

    init(_ security: ChannelSecurity) {
        chosen = Mutex(security)
    }

    /// The security the next connection uses.
    var security: ChannelSecurity { chosen.withLock { $0 } }

    /// From now on, connections to this host are in clear.
    func fallBackToClear() {
        chosen.withLock { $0 = .clear }
    }

    /// From now on, connections to this host prove `code` (nil: none) for `use` in the handshake.
    func prove(_ code: String?, for use: PasscodeUse) {
        chosen.withLock { security in
            guard case .encrypted(var options) = security else { return }
            options.passcode = code.map { PasscodeOffer(code: $0, use: use) }
            security = .encrypted(options)
        }
    }
}

/// The players this user has met, by key (`known_players` beside the key,
/// like SSH's known_hosts): the one place that decides what a meeting means.
enum KnownPeople {
    /// `$XDG_DATA_HOME/parlor/known_players`.
    static var path: String { LocalData.directory + "/known_players" }

    /// What meeting `name` with `key` means.
    enum Meeting: Equatable {
        /// Never seen: remembered now (trust on first use).
        case first
        /// This key was met before (under `player.name`, since `player.firstSeen`).
        case known(KnownPlayer)
        /// The name is known with another key: refuse, saying both.
        case changed(old: KnownPlayer)
    }

    private static let lock = Mutex(())

    /// Checks `name` with `key`, remembering a first meeting in the file.
    static func meet(name: String, key: PlayerPublicKey, today: CalendarDay = .today) -> Meeting {
        lock.withLock { _ in
            var players = load()
            switch players.check(name: name, fingerprint: key.fingerprint) {
            case .known(let player): return .known(player)
            case .changedKey(let old): return .changed(old: old)
            case .new:
                if (try? players.remember(name: name, fingerprint: key.fingerprint, firstSeen: today)) != nil { save(players) }
                return .first
            }
        }
    }

    /// Only checks (resuming: the name is the saved one, nothing is remembered yet).
    static func check(name: String, key: PlayerPublicKey) -> Meeting {
        switch load().check(name: name, fingerprint: key.fingerprint) {
        case .known(let player): .known(player)
        case .changedKey(let old): .changed(old: old)
        case .new: .first
        }
    }

    /// Forgets the players called `nameOrFingerprint` (or with that fingerprint); returns them.
    static func forget(_ nameOrFingerprint: String) throws(CommandFailure) -> [KnownPlayer] {
        try lock.withLock { _ throws(CommandFailure) in
            var players = load()
            var forgotten: [KnownPlayer] = []
            if let fingerprint = try? Fingerprint.parse(nameOrFingerprint), let player = players.forget(fingerprint: fingerprint) {
                forgotten = [player]
            } else {
                forgotten = players.forget(name: nameOrFingerprint)
            }
            if !forgotten.isEmpty {
                guard save(players) else {
                    throw CommandFailure("cannot write \(path): \(String(cString: strerror(errno)))", exitCode: .ioError)
                }
            }
            return forgotten
        }
    }

    /// The file as it is (empty when there is none; unreadable lines are kept, not lost).
    static func load() -> KnownPlayers {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            return KnownPlayers()
        }
        return KnownPlayers(parsing: text)
    }

    /// Writes the file atomically (a temporary file renamed over it), mode 0600.
    @discardableResult
    static func save(_ players: KnownPlayers) -> Bool {
        try? FileManager.default.createDirectory(atPath: LocalData.directory, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        let temporary = path + ".tmp-\(getpid())"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(players.formatted().utf8),
                                             attributes: [.posixPermissions: 0o600]) else { return false }
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }

    /// The host's judge of a new guest's key (HostConfiguration.judgePlayer): a first
    /// meeting is remembered, a known key passes, a known name with another key is refused.
    /// (A guest taking a seat back is judged by Session against the seat's key, never by
    /// its name: two players of one name may share a table.)
    static func judgeGuest(remembering: Bool) -> @Sendable (String, PlayerPublicKey) -> String? {
        { name, key in judge(name: name, key: key, remembering: remembering) }
    }

    private static func judge(name: String, key: PlayerPublicKey, remembering: Bool) -> String? {
        guard case .changed(let old) = remembering ? meet(name: name, key: key) : check(name: name, key: key) else { return nil }
        return "This host knows \(Text.escapingUnprintable(name)) by another key (\(old.fingerprint), since \(old.firstSeen)); "
            + "yours is \(key.fingerprint). If you are \(Text.escapingUnprintable(name)) on a new machine, ask the host to run: "
            + "parlor forget-player \(quoted(old.name)); if you are someone else of that name, join with another --name"
    }

    /// Why a host calling itself `name` with `key` is refused (nil: it is not).
    static func hostRefusal(name: String, key: PlayerPublicKey, old: KnownPlayer) -> String {
        "refusing the host: it calls itself \(Text.escapingUnprintable(name)), but the \(Text.escapingUnprintable(old.name)) you met "
            + "on \(old.firstSeen) had the key \(old.fingerprint); this host's key is \(key.fingerprint). Someone may be "
            + "pretending to be \(Text.escapingUnprintable(old.name)). If they really have a new key (a new machine), "
            + "run: parlor forget-player \(quoted(old.name)); if it is someone else of that name, ask them to host with another --name"
    }

    /// How a list marks an advertised host: "known" (its key was met under
    /// this name), "known as NAME", "not the known key" (the name was met
    /// with another key), or nil (never met, or no key advertised). Only the
    /// start of the key is advertised: a mark, never a trust decision.
    static func listed(name: String, shortKey: String?, among known: KnownPlayers? = nil) -> String? {
        guard let shortKey else { return nil }
        let players = (known ?? load()).players
        if let player = players.first(where: { $0.fingerprint.short == shortKey }) {
            return player.name.lowercased() == name.lowercased() ? "known" : "known as \(Text.escapingUnprintable(player.name))"
        }
        if players.contains(where: { $0.name.lowercased() == name.lowercased() }) { return "not the known key" }
        return nil
    }

    /// The line a side shows about the other's key when a match begins.
    static func line(name: String, key: PlayerPublicKey, meeting: Meeting) -> String {
        let shown = Text.escapingUnprintable(name)
        switch meeting {
        case .first:
            return "\(shown)'s key: \(key.fingerprint) (first meeting: compare it with theirs; parlor id shows yours)"
        case .known(let player):
            let alias = player.name.lowercased() == name.lowercased() ? "" : ", as \(Text.escapingUnprintable(player.name))"
            return "\(shown)'s key: \(key.fingerprint) (known since \(player.firstSeen)\(alias))"
        case .changed(let old):
            return "\(shown)'s key: \(key.fingerprint) (NOT the key known since \(old.firstSeen): \(old.fingerprint))"
        }
    }

    /// What a spectator is shown of the host's key: it names no host, so the key is looked up, never remembered.
    static func hostLine(key: PlayerPublicKey) -> String {
        if let player = load().players.first(where: { $0.fingerprint == key.fingerprint }) {
            return "The host's key: \(key.fingerprint) (known as \(Text.escapingUnprintable(player.name)) since \(player.firstSeen))"
        }
        return "The host's key: \(key.fingerprint) (not met before; the host's parlor id shows theirs)"
    }

    private static func quoted(_ name: String) -> String {
        name.contains(" ") || name.contains("'") ? "\"\(Text.escapingUnprintable(name))\"" : Text.escapingUnprintable(name)
    }
}

extension CalendarDay {
    /// Today, in UTC.
    static var today: CalendarDay {
        let parts = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date())
        return CalendarDay(year: parts.year ?? 1970, month: parts.month ?? 1, day: parts.day ?? 1) ?? CalendarDay(year: 1970, month: 1, day: 1)!
    }
}
