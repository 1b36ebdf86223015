import Discovery
import Foundation
import Session
import TerminalUI

/// Runs `parlor doctor`: checks, one by one, what LAN play needs here, and
/// prints each as ok or FAIL with how to fix it.
///
/// The checks: avahi's dns_sd library loads; an avahi-daemon answers (a
/// browse is accepted); how many of the system bus's connections per user
/// are left (a browsing parlor holds one, and one per hosted game); some interface that is up does
/// multicast; a temporary service published here is seen by a browse
/// here; and which ports a firewall must let through. Exit 0 when every check passes, 69
/// (service unavailable) otherwise.
func runDoctor(_ options: DoctorOptions) async throws -> ExitCode {
    var results: [DoctorCheck] = []
    func report(_ check: DoctorCheck) {
        results.append(check)
        if options.json {
            Console.write(check.json.encoded + "\n")
        } else {
            Console.write(check.text)
        }
        fflush(nil)
    }

    let library = DoctorChecks.library()
    report(library)
    let daemon = library.ok ? await DoctorChecks.daemon() : .skipped("daemon", "avahi-daemon", because: "the DNS-SD library is missing")
    report(daemon)
    report(DoctorChecks.dbusConnections())
    report(DoctorChecks.interfaces())
    report(daemon.ok ? await DoctorChecks.roundTrip() : .skipped("roundtrip", DoctorChecks.roundTripTitle, because: "no avahi-daemon answered"))
    report(DoctorChecks.ports())

    let failed = results.filter { !$0.ok }
    if !options.json {
        if failed.isEmpty {
            Console.write("\nEverything LAN play needs works here.\n")
        } else {
            Console.write("\n\(failed.count) of \(results.count) checks failed. Players can still join by address, "
                          + "without discovery: the host prints 'parlor join ADDRESS:PORT' lines.\n")
        }
    }
    return failed.isEmpty ? .success : .serviceUnavailable
}

/// The outcome of one doctor check.
struct DoctorCheck: Sendable {
    /// A stable id for scripts ("library", "daemon", "dbus", "interfaces", "roundtrip", "ports").
    var id: String
    /// What is checked, for people.
    var title: String
    var ok: Bool
    /// What was found.
    var detail: String
    /// How to fix it; nil when there is nothing to fix.
    var fix: String?

    static func skipped(_ id: String, _ title: String, because reason: String) -> DoctorCheck {
        DoctorCheck(id: id, title: title, ok: false, detail: "not checked: \(reason)", fix: "fix the check above first")
    }

    /// "ok    title   detail" (and an indented "fix:" line).
    var text: String {
        var text = (ok ? "ok  " : "FAIL") + "  " + title.padding(toLength: 22, withPad: " ", startingAt: 0) + detail + "\n"
        if let fix { text += String(repeating: " ", count: 28) + (ok ? "note: " : "fix: ") + fix + "\n" }
        return text
    }

    var json: JSONValue {
        .object([("check", .string(id)), ("title", .string(title)), ("ok", .bool(ok)), ("detail", .string(detail)),
                 ("fix", fix.map { .string($0) } ?? .null)])
    }
}

/// Each check's line (the DNS-SD checks themselves are Discovery's `DiscoveryChecks`).
enum DoctorChecks {
    static let roundTripTitle = "publish and browse"

    static func library() -> DoctorCheck {
        switch DNSSDDirectory.loadLibrary() {
        case .success(let name):
            return DoctorCheck(id: "library", title: "DNS-SD library", ok: true, detail: "\(name) loaded", fix: nil)
        case .failure(let error):
            return DoctorCheck(id: "library", title: "DNS-SD library", ok: false, detail: detail(error), fix: fix(error))
        }
    }

    static func daemon() async -> DoctorCheck {
        if let error = await DiscoveryChecks.daemonRefusal(in: DNSSDDirectory()) {
            return DoctorCheck(id: "daemon", title: "avahi-daemon", ok: false, detail: detail(error), fix: fix(error))
        }
        return DoctorCheck(id: "daemon", title: "avahi-daemon", ok: true,
                           detail: "answers on D-Bus (\(systemBus.address))", fix: nil)
    }

    /// dbus-daemon's `max_connections_per_user`, and how many the user holds now (`busctl`).
    static func dbusConnections() -> DoctorCheck {
        let budget = DBusConnectionBudget(
            limit: DBusConnectionBudget.limit(inConfigurations: DBusConnectionBudget.systemConfigurations()),
            inUse: userConnectionsOnSystemBus())
        return dbusConnections(budget, user: userName)
    }

    /// The check's line for `budget`; ok unless the user is near the limit.
    static func dbusConnections(_ budget: DBusConnectionBudget, user: String) -> DoctorCheck {
        let title = "D-Bus connections"
        let limit = "dbus-daemon allows \(budget.limit) per user (max_connections_per_user)"
        guard let inUse = budget.inUse else {
            return DoctorCheck(id: "dbus", title: title, ok: true,
                               detail: "\(limit); how many are in use was not counted (no busctl)",
                               fix: "a browsing parlor holds one, and one more per game it hosts: up to \(DBusConnectionBudget.browsingNeeds)")
        }
        let detail = "\(inUse) of \(budget.limit) in use by \(user): \(limit); a browsing parlor holds up to \(DBusConnectionBudget.browsingNeeds)"
        guard budget.isNear else { return DoctorCheck(id: "dbus", title: title, ok: true, detail: detail, fix: nil) }
        return DoctorCheck(
            id: "dbus", title: title, ok: false,
            detail: detail + "; near the limit, parlor's browse and hosted games may be refused and games go missing for a while",
            fix: "close programs that hold many D-Bus connections ('busctl --system list' shows them), or raise the limit: "
                + "<limit name=\"max_connections_per_user\">\(budget.limit * 2)</limit> in /etc/dbus-1/system-local.conf, then restart dbus")
    }

    static var userName: String {
        guard let entry = getpwuid(getuid()), let name = entry.pointee.pw_name else { return "uid \(getuid())" }
        return String(cString: name)
    }

    /// The user's connections on the system bus, from `busctl --system --json=short list`; nil without busctl.
    static func userConnectionsOnSystemBus() -> Int? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // The bus's own view of each connection's user: busctl's augmenting
        // from /proc finds no user inside a network namespace (the lab).
        process.arguments = ["busctl", "--system", "--json=short", "--no-pager", "--timeout=2", "list", "--unique",
                             "--augment-creds=no"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        // Not counting busctl's own connection.
        return DBusConnectionBudget.connections(ofUser: userName, inBusctlJSON: data).map { max(0, $0 - 1) }
    }

    static func interfaces() -> DoctorCheck {
        let all: [InterfaceAddress]
        do { all = try InterfaceAddresses.all() } catch {
            return DoctorCheck(id: "interfaces", title: "multicast interfaces", ok: false,
                               detail: "cannot list the interfaces: \(error)", fix: nil)
        }
        let usable = all.filter { $0.isUp && !$0.isLoopback && $0.supportsMulticast }
        guard !usable.isEmpty else {
            let others = all.filter { !$0.isLoopback }
            return DoctorCheck(
                id: "interfaces", title: "multicast interfaces", ok: false,
                detail: others.isEmpty ? "no network interface besides loopback"
                    : "none is up with multicast: " + others.map(\.description).joined(separator: ", "),
                fix: "connect to a network whose interface does multicast; DNS-SD (mDNS) needs it")
        }
        var names: [String] = []
        var addresses: [String: [String]] = [:]
        for entry in usable {
            if addresses[entry.interfaceName] == nil { names.append(entry.interfaceName) }
            addresses[entry.interfaceName, default: []].append(entry.address.ipAddress)
        }
        let detail = names.map { "\($0) (\(addresses[$0, default: []].joined(separator: ", ")))" }.joined(separator: "; ")
        return DoctorCheck(id: "interfaces", title: "multicast interfaces", ok: true, detail: detail, fix: nil)
    }

    /// Publishes a service of a type of its own and waits until a browse here sees it with its TXT record.
    static func roundTrip() async -> DoctorCheck {
        let title = roundTripTitle
        switch await DiscoveryChecks.roundTrip(in: DNSSDDirectory(), port: HostOptions.defaultPort) {
        case .found(let name, let elapsed, let found):
            let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
            let addresses = found.joined(separator: ", ")
            return DoctorCheck(id: "roundtrip", title: title, ok: true,
                               detail: "published \"\(name)\" and found it in \(milliseconds) ms"
                                   + (addresses.isEmpty ? "" : " at \(addresses)"), fix: nil)
        case .publishFailed(let error):
            return DoctorCheck(id: "roundtrip", title: title, ok: false, detail: "publishing failed: \(detail(error))", fix: fix(error))
        case .browseFailed(let error):
            return DoctorCheck(id: "roundtrip", title: title, ok: false, detail: "browsing failed: \(detail(error))", fix: fix(error))
        case .notSeen(let name, let limit):
            return DoctorCheck(
                id: "roundtrip", title: title, ok: false,
                detail: "published \"\(name)\" but a browse did not see it within \(BrowseText.seconds(limit))",
                fix: "check avahi-daemon's log ('journalctl -u avahi-daemon'); its allow-interfaces or deny-interfaces may exclude every interface")
        case .ended:
            return DoctorCheck(id: "roundtrip", title: title, ok: false, detail: "the browse ended early", fix: nil)
        }
    }

    static func ports() -> DoctorCheck {
        let port = HostOptions.defaultPort
        var detail = "a firewall must allow UDP 5353 (mDNS, to 224.0.0.251 and ff02::fb) and TCP \(port), the game's port"
        var note = "a game hosted with 'parlor host --port N' needs TCP N instead"
        do {
            let listener = try TCPListener.listen(port: port)
            listener.close()
            detail += "; TCP \(port) is free here"
        } catch {
            if case .addressInUse = error {
                detail += "; TCP \(port) is in use here"
                note = "'parlor host' will then listen on a free port and print it; allow that port, or pick one with --port"
            }
        }
        return DoctorCheck(id: "ports", title: "firewall ports", ok: true, detail: detail, fix: note)
    }

    /// The D-Bus system bus avahi is reached through, and whether its socket exists.
    static var systemBus: (address: String, socketExists: Bool?) {
        let address = ProcessInfo.processInfo.environment["DBUS_SYSTEM_BUS_ADDRESS"]
            ?? "unix:path=/run/dbus/system_bus_socket"
        guard address.hasPrefix("unix:path=") else { return (address, nil) }
        let path = String(address.dropFirst("unix:path=".count).prefix { $0 != "," })
        return (address, FileManager.default.fileExists(atPath: path))
    }

    static func detail(_ error: DiscoveryError) -> String {
        switch error {
        case .libraryMissing(let name, let reason):
            return "cannot load \(name): \(reason)"
        case .daemonUnavailable(let operation, _):
            let bus = systemBus
            if bus.socketExists == false {
                return "no D-Bus system bus at \(bus.address), so no avahi-daemon can answer (\(operation) failed)"
            }
            return "no avahi-daemon answered on D-Bus (\(operation) failed)"
        case .daemonDisconnected(let operation):
            return "avahi-daemon went away during \(operation)"
        default:
            return "\(error)"
        }
    }

    static func fix(_ error: DiscoveryError) -> String? {
        switch error {
        case .libraryMissing:
            return "sudo apt-get install libavahi-compat-libdnssd1 avahi-daemon"
        case .daemonUnavailable:
            if systemBus.socketExists == false { return "sudo systemctl start dbus avahi-daemon (install: sudo apt-get install avahi-daemon)" }
            return "sudo systemctl start avahi-daemon (install: sudo apt-get install avahi-daemon)"
        case .daemonDisconnected:
            return "sudo systemctl restart avahi-daemon"
        case .timedOut:
            return "restart it: sudo systemctl restart avahi-daemon"
        default:
            return nil
        }
    }
}
