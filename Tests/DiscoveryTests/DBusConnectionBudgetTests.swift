import Foundation
import Testing

@testable import Discovery

/// What `parlor doctor` says about dbus-daemon's connections per user (issue 40: each DNS-SD lookup is one).
@Suite struct DBusConnectionBudgetTests {
    @Test func theLimitIsTheDefaultUnlessALiveLimitElementSetsItAndTheLastOneWins() {
        // Debian's system.conf names the limit only in a comment.
        let shipped = """
            <busconfig>
              <!-- <limit name="max_connections_per_user">256</limit> -->
              <!-- <limit name="max_completed_connections">2048</limit> -->
            </busconfig>
            """
        #expect(DBusConnectionBudget.limit(inConfigurations: [shipped]) == 256)
        let local = """
            <busconfig>
              <limit name="max_completed_connections">4096</limit>
              <limit name='max_connections_per_user'> 512 </limit>
            </busconfig>
            """
        #expect(DBusConnectionBudget.limit(inConfigurations: [shipped, local]) == 512)
        let later = #"<busconfig><limit name="max_connections_per_user">300</limit></busconfig>"#
        #expect(DBusConnectionBudget.limit(inConfigurations: [local, later]) == 300)
        #expect(DBusConnectionBudget.limit(inConfigurations: [#"<limit name="max_connections_per_user">lots</limit>"#]) == 256)
    }

    @Test func busctlsListCountsTheUsersUniqueNamesOnly() throws {
        let listing = #"""
            [{"name":":1.0","pid":8601,"process":"n/a","user":"avahi","connection":":1.0"},
             {"name":":1.5","pid":8657,"process":"n/a","user":"ana","connection":":1.5"},
             {"name":":1.9","pid":8700,"process":"n/a","user":"ana","connection":":1.9"},
             {"name":"org.example.Ana","pid":8657,"process":"n/a","user":"ana","connection":":1.5"},
             {"name":":1.12","pid":null,"process":null,"user":null,"connection":null}]
            """#
        #expect(DBusConnectionBudget.connections(ofUser: "ana", inBusctlJSON: Data(listing.utf8)) == 2)
        #expect(DBusConnectionBudget.connections(ofUser: "bo", inBusctlJSON: Data(listing.utf8)) == 0)
        #expect(DBusConnectionBudget.connections(ofUser: "ana", inBusctlJSON: Data("Failed to connect".utf8)) == nil)
    }

    @Test func nearMeansFewerLeftThanTwoBrowsingParlorsHold() {
        #expect(!DBusConnectionBudget(limit: 256, inUse: 240).isNear)
        #expect(DBusConnectionBudget(limit: 256, inUse: 250).isNear)
        #expect(DBusConnectionBudget(limit: 256, inUse: 250).left == 6)
        #expect(DBusConnectionBudget(limit: 256, inUse: 300).left == 0)
        #expect(!DBusConnectionBudget(limit: 256, inUse: nil).isNear, "not counted is not near")
    }
}
