import Secure
import Testing
@testable import ParlorCLI

/// How browse and the lobby mark an advertised host against the players met before (issue 38, item 3).
@Suite struct KnownListingTests {
    @Test("an advertised key met under the name is 'known'; under another name, 'known as'; the name with another key, 'not the known key'; else nothing")
    func marks() throws {
        let ana = try IdentityKeyPair.generate().fingerprint
        let stranger = try IdentityKeyPair.generate().fingerprint
        var known = KnownPlayers()
        try known.remember(name: "Ana", fingerprint: ana, firstSeen: CalendarDay(year: 2026, month: 12, day: 1)!)
        #expect(KnownPeople.listed(name: "ana", shortKey: ana.short, among: known) == "known")
        #expect(KnownPeople.listed(name: "Annie", shortKey: ana.short, among: known) == "known as Ana")
        #expect(KnownPeople.listed(name: "Ana", shortKey: stranger.short, among: known) == "not the known key")
        #expect(KnownPeople.listed(name: "Bo", shortKey: stranger.short, among: known) == nil)
        #expect(KnownPeople.listed(name: "Ana", shortKey: nil, among: known) == nil, "a host from before protocol 3 advertises no key")
    }
}
