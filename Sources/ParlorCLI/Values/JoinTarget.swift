@preconcurrency import Glibc

/// Why a join target was refused.
public enum JoinTargetProblem: Error, Sendable, Hashable {
    /// Nothing was given.
    case empty
    /// The part after the colon is not a port from 1 to 65535.
    case badPort
    /// An IPv6 address without brackets.
    case unbracketedIPv6
    /// Looks like an IP address but is not a valid one.
    case badAddress
    /// A service name longer than DNS-SD allows.
    case nameTooLong
    /// A control character, line break or direction override.
    case unprintable

    /// The sentence an error shows.
    public var explanation: String {
        switch self {
        case .empty:
            "expected HOST:PORT, [IPv6]:PORT or a game's name as 'parlor browse' lists it."
        case .badPort:
            "the port must be a whole number from 1 to 65535."
        case .unbracketedIPv6:
            "write an IPv6 address in brackets followed by the port, e.g. [::1]:\(HostOptions.defaultPort)."
        case .badAddress:
            "not a valid IPv4 or IPv6 address."
        case .nameTooLong:
            "a game's name is at most \(JoinTarget.maximumNameBytes) bytes."
        case .unprintable:
            "a name cannot contain control characters or line breaks."
        }
    }
}

/// Where `parlor join` should go: an address, or a game's advertised name.
///
/// Parsing rules, in order:
/// - `[ADDRESS]:PORT` is an IPv6 address, optionally with a zone
///   (`[fe80::1%eth0]:7477`);
/// - `HOST:PORT`, where HOST is a host name or IPv4 address (letters,
///   digits, `.` and `-`) and PORT has no spaces, is an address and PORT
///   must be 1–65535 (`localhost:http` is an error, not a name);
/// - a bare IPv4 address or a bracketed IPv6 one without a port is that
///   address at parlor's port, 7477 (`HostOptions.defaultPort`); an IPv6
///   address without brackets is an error, since `::1:7477` would read as
///   an address of its own;
/// - anything else is a service name, matched exactly or as a unique
///   case-insensitive prefix by the discovery layer (`Ana's Connect Four`).
public enum JoinTarget: Sendable, Hashable, CustomStringConvertible {
    /// A host name or IP literal (IPv6 without brackets, zone kept) and a port.
    case address(host: String, port: UInt16)
    /// A DNS-SD instance name or a prefix of one.
    case name(String)

    /// DNS-SD instance names are at most 63 bytes of UTF-8.
    public static let maximumNameBytes = 63

    /// Parses a join target, or throws why it cannot be one.
    public init(parsing text: String) throws(JoinTargetProblem) {
        if text.unicodeScalars.contains(where: Text.isUnprintable) { throw .unprintable }
        if Text.trimmingWhitespace(text).isEmpty { throw .empty }

        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw .badAddress }
            let host = String(text[text.index(after: text.startIndex)..<close])
            guard Self.isIPv6Literal(host) else { throw .badAddress }
            let rest = text[text.index(after: close)...]
            if rest.isEmpty { self = .address(host: host, port: HostOptions.defaultPort); return }
            guard rest.first == ":" else { throw .badAddress }
            self = .address(host: host, port: try Self.port(rest.dropFirst()))
            return
        }

        let colons = text.filter { $0 == ":" }.count
        if colons >= 2 {
            if Self.isIPv6Literal(text) { throw .unbracketedIPv6 }
            if let last = text.lastIndex(of: ":"), Self.isIPv6Literal(String(text[..<last])) {
                throw .unbracketedIPv6
            }
        } else if colons == 1, let colon = text.firstIndex(of: ":") {
            let host = String(text[..<colon])
            let portText = text[text.index(after: colon)...]
            if Self.isHostName(host), !portText.contains(where: \.isWhitespace) {
                if Self.looksLikeIPv4(host), !Self.isIPv4Literal(host) { throw .badAddress }
                self = .address(host: host, port: try Self.port(portText))
                return
            }
        } else if Self.looksLikeIPv4(text) {
            guard Self.isIPv4Literal(text) else { throw .badAddress }
            self = .address(host: text, port: HostOptions.defaultPort)
            return
        }

        if text.utf8.count > Self.maximumNameBytes { throw .nameTooLong }
        self = .name(text)
    }

    /// `host:port`, `[v6]:port` or the name, as a person would type it again.
    public var description: String {
        switch self {
        case .address(let host, let port) where host.contains(":"): "[\(host)]:\(port)"
        case .address(let host, let port): "\(host):\(port)"
        case .name(let name): name
        }
    }

    /// A port from 1 to 65535 written in decimal digits only.
    private static func port(_ text: Substring) throws(JoinTargetProblem) -> UInt16 {
        guard !text.isEmpty, text.count <= 5, text.allSatisfy({ $0.isASCII && $0.isNumber }),
              let value = Int(text), (1...65535).contains(value)
        else { throw .badPort }
        return UInt16(value)
    }

    /// Letters, digits, `.` and `-`, starting with a letter or digit: a DNS
    /// host name or an IPv4 literal. A service name with a space or an
    /// apostrophe never matches, so `Ana's game: round 2` stays a name.
    private static func isHostName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first.isASCII,
              first.properties.isAlphabetic || ("0"..."9").contains(first)
        else { return false }
        return text.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "." || $0 == "-")
        }
    }

    /// Digits and dots with at least one dot: meant as an IPv4 address.
    private static func looksLikeIPv4(_ text: String) -> Bool {
        text.contains(".") && text.allSatisfy { $0 == "." || ($0.isASCII && $0.isNumber) }
    }

    private static func isIPv4Literal(_ text: String) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, text, &address) == 1
    }

    /// An IPv6 literal, optionally with a `%zone` of letters, digits, `.`, `_` and `-`.
    static func isIPv6Literal(_ text: String) -> Bool {
        var addressPart = Substring(text)
        if let percent = text.firstIndex(of: "%") {
            let zone = text[text.index(after: percent)...]
            guard !zone.isEmpty, zone.unicodeScalars.allSatisfy({
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0))
            }) else { return false }
            addressPart = text[..<percent]
        }
        var address = in6_addr()
        return inet_pton(AF_INET6, String(addressPart), &address) == 1
    }
}

/// What `parlor resume` was pointed at.
public enum ResumeTarget: Sendable, Hashable {
    /// A saved match, by id (or a unique prefix of one).
    case match(id: String)
    /// A host to reconnect to directly, for networks without multicast.
    case address(host: String, port: UInt16)
}

/// Saved match ids as typed on the command line.
public enum MatchIDText {
    /// The longest id accepted.
    public static let maximumLength = 64

    /// Whether `text` can be a match id: 1–64 ASCII letters, digits, `-` or `_`.
    public static func isValid(_ text: String) -> Bool {
        !text.isEmpty && text.count <= maximumLength && text.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_")
        }
    }
}
