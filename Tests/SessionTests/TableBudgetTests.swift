import Session
import Testing

/// What `parlor host --tables N` tells a user whose `ulimit -n` is too low.
@Suite struct TableBudgetTests {
    @Test func aThousandTablesNeedFourFilesEachAndTheReserve() {
        #expect(TableBudget.descriptorsNeeded(tables: 1000) == 4128)
        #expect(TableBudget.descriptorsNeeded(tables: 0) == 128)
    }

    @Test func theDefaultLimitFitsTwoHundredTwentyFourTables() {
        #expect(TableBudget.tablesFitting(descriptors: 1024) == 224)
        #expect(TableBudget.descriptorsNeeded(tables: 224) <= 1024)
        #expect(TableBudget.descriptorsNeeded(tables: 225) > 1024)
    }

    @Test func noTableFitsWhenOnlyTheReserveIsOpen() {
        #expect(TableBudget.tablesFitting(descriptors: 128) == 0)
        #expect(TableBudget.tablesFitting(descriptors: 10) == 0)
    }
}
