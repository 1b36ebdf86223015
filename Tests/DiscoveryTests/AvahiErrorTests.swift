@testable import Discovery
import Testing

/// What a person reads when avahi-client refuses or fails (no daemon is needed: only avahi's library).
@Suite("Discovery: avahi-client's errors")
struct AvahiErrorTests {
    @Test(
        "the daemon's limits are refusals that may pass, said with avahi's reason and that parlor tries again",
        arguments: [-16, -17, -18])   // AVAHI_ERR_TOO_MANY_CLIENTS, _OBJECTS, _ENTRIES
    func limits(code: Int32) throws {
        let library = try AvahiLibrary.shared.get()
        let error = AvahiLibrary.error(code, operation: "avahi_service_resolver_new", library: library)
        guard case .daemonRefused = error else { Issue.record("\(error)"); return }
        #expect(error.mayPass)
        #expect("\(error)".contains("Too many"))
        #expect("\(error)".contains("parlor tries again"))
    }

    @Test("no daemon, and a daemon gone away, say what to do and may pass (parlor connects again)")
    func noDaemon() throws {
        let library = try AvahiLibrary.shared.get()
        let missing = AvahiLibrary.error(-26, operation: "avahi_client_new", library: library)
        guard case .daemonUnavailable = missing else { Issue.record("\(missing)"); return }
        #expect("\(missing)".contains("AVAHI_ERR_NO_DAEMON (-26)"))
        #expect("\(missing)".contains("sudo systemctl start avahi-daemon"))
        let gone = AvahiLibrary.error(-23, operation: "browsing _parlor._tcp", library: library)
        #expect(gone == .daemonDisconnected(operation: "browsing _parlor._tcp"))
        #expect(missing.mayPass && gone.mayPass)
    }

    @Test("another avahi error ends the operation with avahi's own sentence")
    func other() throws {
        let library = try AvahiLibrary.shared.get()
        let error = AvahiLibrary.error(-3, operation: "avahi_service_browser_new", library: library)
        #expect(!error.mayPass)
        #expect("\(error)".hasPrefix("avahi_service_browser_new failed: "))
        #expect("\(error)".count > "avahi_service_browser_new failed: ".count)
    }
}
