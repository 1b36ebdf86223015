import Testing
@testable import Secure

@Suite struct KnownPlayersTests {
    let bo: Fingerprint
    let impostor: Fingerprint
    let ana: Fingerprint
    let day = CalendarDay(year: 2026, month: 3, day: 14)

    init() throws {
        bo = try IdentityKeyPair(seed: [UInt8](repeating: 1, count: 32)).fingerprint
        impostor = try IdentityKeyPair(seed: [UInt8](repeating: 2, count: 32)).fingerprint
        ana = try IdentityKeyPair(seed: [UInt8](repeating: 3, count: 32)).fingerprint
    }

    @Test func firstContactThenKnownThenAChangedKeyIsRefused() throws {
        let firstSeen = try #require(day)
        var known = KnownPlayers()
        #expect(known.check(name: "Bo", fingerprint: bo) == .new)
        try known.remember(name: "Bo", fingerprint: bo, firstSeen: firstSeen)
        let record = KnownPlayer(fingerprint: bo, name: "Bo", firstSeen: firstSeen)
        #expect(known.check(name: "Bo", fingerprint: bo) == .known(record))
        // Same key under a new name: the same player, renamed.
        #expect(known.check(name: "Bo J", fingerprint: bo) == .known(record))
        // A known name (in any case) with another key: refused.
        #expect(known.check(name: "Bo", fingerprint: impostor) == .changedKey(old: record))
        #expect(known.check(name: "bo", fingerprint: impostor) == .changedKey(old: record))
        #expect(throws: KnownPlayersError.nameHeldByAnotherKey(record)) {
            try known.remember(name: "BO", fingerprint: impostor, firstSeen: firstSeen)
        }
        // Accepting the new key is a deliberate forget, then a first contact.
        #expect(known.forget(name: "bo") == [record])
        #expect(known.check(name: "Bo", fingerprint: impostor) == .new)
        try known.remember(name: "Bo", fingerprint: impostor, firstSeen: firstSeen)
        #expect(known.players.map(\.fingerprint) == [impostor])
        #expect(known.forget(fingerprint: impostor)?.name == "Bo")
        #expect(known.players.isEmpty)
    }

    @Test func theFileRoundTripsWithCommentsNamesWithSpacesAndBadLines() throws {
        let text = """
        # parlor known players
        \(bo) Bo Jensen 2026-03-14

        \(ana.symbols.lowercased()) Ana 2025-12-31
        not-a-fingerprint Carl 2026-01-01
        \(impostor) Dee 2026-02-30
        \(bo) Bo again 2026-03-15
        \(impostor)
        \(impostor) Eve 2026-04-01

        """
        let known = KnownPlayers(parsing: text)
        #expect(known.players.map(\.name) == ["Bo Jensen", "Ana", "Eve"])
        #expect(known.players.map(\.fingerprint) == [bo, ana, impostor])
        #expect(known.players.first?.firstSeen.description == "2026-03-14")
        #expect(known.problems.map(\.line) == [5, 6, 7, 8])
        #expect(known.problems.map(\.reason) == [
            .badFingerprint(.wrongLength(count: 15)), .badDate("2026-02-30"), .duplicateFingerprint, .missingFields,
        ])
        // Unreadable lines and comments are written back as they were.
        let again = KnownPlayers(parsing: known.formatted())
        #expect(again.players == known.players)
        #expect(known.formatted().contains("not-a-fingerprint Carl 2026-01-01\n"))
        #expect(known.formatted().contains("# parlor known players\n"))
        #expect(known.formatted().contains("\(ana) Ana 2025-12-31\n"), "players are written in display form")
    }

    @Test func namesThatCannotBeStoredAreRefused() throws {
        let firstSeen = try #require(day)
        var known = KnownPlayers()
        for name in ["", "   ", "# sneaky", "two\nlines"] {
            #expect(throws: KnownPlayersError.unstorableName(name)) {
                try known.remember(name: name, fingerprint: bo, firstSeen: firstSeen)
            }
        }
    }

    @Test(arguments: ["2026-3-14", "2026-13-01", "2026-02-29", "20260314", "2026-03-14x", "２０２６-03-14"])
    func malformedDatesAreRefused(_ text: String) {
        #expect(CalendarDay(text) == nil)
    }

    @Test func leapDaysAreDates() {
        #expect(CalendarDay("2024-02-29")?.description == "2024-02-29")
        #expect(CalendarDay("2000-02-29") != nil)
        #expect(CalendarDay("1900-02-29") == nil)
    }
}
