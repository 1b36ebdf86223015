// dbus-daemon's limit on one user's connections, for `parlor doctor`.
//
// The system bus refuses a user's connection past `max_connections_per_user`
// (256 unless its configuration says otherwise). A browsing parlor holds
// one (avahi-client's, `AvahiConnection`) and one more per game it hosts
// (avahi's dns_sd library opens a D-Bus connection per registration), but
// other programs of the same user count too: when none is left, parlor's
// browse or a registration is refused and games go missing for a while. Pure: ParlorCLI reads the files and asks
// the bus; this decides.

import Foundation

/// How many of dbus-daemon's connections per user are in use, and whether a browsing parlor still fits.
public struct DBusConnectionBudget: Sendable, Equatable {
    /// dbus-daemon's built-in `max_connections_per_user`.
    public static let defaultLimit = 256
    /// The D-Bus connections a browsing parlor holds with a few games hosted
    /// (the one avahi-client connection, a registration per hosted game).
    public static let browsingNeeds = 4
    /// The configuration files of the system bus, in the order dbus-daemon reads them (the last limit wins).
    public static let systemConfigurationPaths = [
        "/usr/share/dbus-1/system.conf", "/etc/dbus-1/system.conf",
        "/usr/share/dbus-1/system.d", "/etc/dbus-1/system.d",
        "/etc/dbus-1/system-local.conf",
    ]

    /// The bus's `max_connections_per_user`.
    public var limit: Int
    /// The user's connections now, or nil when they could not be counted.
    public var inUse: Int?

    /// A budget of `limit` connections per user, `inUse` of them taken (nil: not counted).
    public init(limit: Int, inUse: Int?) {
        self.limit = limit
        self.inUse = inUse
    }

    /// Connections left before the bus refuses the user's next one (nil when not counted).
    public var left: Int? { inUse.map { max(0, limit - $0) } }

    /// Fewer are left than twice what a browsing parlor holds: another
    /// program (or a second parlor) may push it over.
    public var isNear: Bool { left.map { $0 < 2 * Self.browsingNeeds } ?? false }

    /// The `max_connections_per_user` that `texts` (configuration files, in reading order) set, else the default.
    public static func limit(inConfigurations texts: [String]) -> Int {
        var limit = defaultLimit
        for text in texts {
            let live = withoutComments(text)
            var rest = Substring(live)
            while let start = rest.range(of: "<limit") {
                rest = rest[start.upperBound...]
                guard let close = rest.range(of: "</limit>") else { break }
                let element = rest[..<close.lowerBound]
                rest = rest[close.upperBound...]
                guard let tagEnd = element.firstIndex(of: ">") else { continue }
                let attributes = element[..<tagEnd].replacingOccurrences(of: "'", with: "\"")
                guard attributes.contains("name=\"max_connections_per_user\"") else { continue }
                let value = element[element.index(after: tagEnd)...].trimmingCharacters(in: .whitespacesAndNewlines)
                if let number = Int(value), number > 0 { limit = number }
            }
        }
        return limit
    }

    /// The texts of the system bus's configuration files that exist, in reading order (`*.conf` of a directory, sorted).
    public static func systemConfigurations(paths: [String] = systemConfigurationPaths) -> [String] {
        var texts: [String] = []
        let files = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard files.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            let names = isDirectory.boolValue
                ? ((try? files.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasSuffix(".conf") }.sorted()
                    .map { path + "/" + $0 }
                : [path]
            for name in names {
                if let text = try? String(contentsOfFile: name, encoding: .utf8) { texts.append(text) }
            }
        }
        return texts
    }

    /// How many connections (unique names) of `user` a `busctl --json=short list` output shows, or nil if it is not that.
    public static func connections(ofUser user: String, inBusctlJSON data: Data) -> Int? {
        guard let entries = (try? JSONSerialization.jsonObject(with: data)) as? [[String: Any]] else { return nil }
        return entries.filter { entry in
            (entry["name"] as? String)?.hasPrefix(":") == true && entry["user"] as? String == user
        }.count
    }

    private static func withoutComments(_ text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let open = rest.range(of: "<!--") {
            result += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].range(of: "-->") else { return result }
            rest = rest[close.upperBound...]
        }
        return result + rest
    }
}
