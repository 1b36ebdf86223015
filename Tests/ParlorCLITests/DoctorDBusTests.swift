import Discovery
import Testing

@testable import ParlorCLI

/// `parlor doctor`'s D-Bus line (issue 40): it names dbus-daemon's limit,
/// and fails with how to fix it when a browsing parlor may not fit.
@Suite struct DoctorDBusTests {
    @Test func farFromTheLimitItPassesAndNamesTheLimit() {
        let check = DoctorChecks.dbusConnections(DBusConnectionBudget(limit: 256, inUse: 9), user: "ana")
        #expect(check.ok)
        #expect(check.text.contains("9 of 256 in use by ana"))
        #expect(check.text.contains("max_connections_per_user"))
    }

    @Test func nearTheLimitItFailsSaysWhatHappensAndHowToRaiseIt() {
        let check = DoctorChecks.dbusConnections(DBusConnectionBudget(limit: 256, inUse: 250), user: "ana")
        #expect(!check.ok)
        #expect(check.text.hasPrefix("FAIL  D-Bus connections"))
        #expect(check.text.contains("250 of 256 in use by ana"))
        #expect(check.text.contains("refused"))
        #expect(check.fix?.contains(#"<limit name="max_connections_per_user">512</limit>"#) == true)
        #expect(check.fix?.contains("/etc/dbus-1/system-local.conf") == true)
    }

    @Test func uncountedItStillNamesTheLimitAndPasses() {
        let check = DoctorChecks.dbusConnections(DBusConnectionBudget(limit: 300, inUse: nil), user: "ana")
        #expect(check.ok)
        #expect(check.detail.contains("300 per user (max_connections_per_user)"))
    }
}
