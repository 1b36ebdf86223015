import Synchronization
import Testing
import Session

/// What the handlers and tables under test did.
private final class Log: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    func add(_ line: String) { lines.withLock { $0.append(line) } }
}

/// A many-table host's stop: fired once, by the first signal, and every table told.
@Suite struct HallStopTests {
    @Test func theFirstSignalWinsAndEveryWaiterAndHandlerHearsIt() async {
        let stop = HallStop()
        let heard = Log()
        let first = stop.onStop { heard.add("first") }
        let forgotten = stop.onStop { heard.add("forgotten") }
        forgotten.cancel()
        let waiter = Task { await stop.wait() }
        try? await Task.sleep(for: .milliseconds(20))
        #expect(!stop.fired)
        stop.fire(15)
        stop.fire(2)
        #expect(await waiter.value == 15, "SIGTERM came first")
        #expect(await stop.wait() == 15, "a wait after the stop returns at once")
        #expect(heard.all == ["first"], "a cancelled handler is not run, and no handler runs twice")
        first.cancel()
        // A table seated after the stop is told at once.
        _ = stop.onStop { heard.add("late") }
        #expect(heard.all == ["first", "late"])
    }

    @Test func waitingForTablesWaitsForEachTablesLeaving() async {
        let stop = HallStop()
        let left = Log()
        for _ in 0..<3 {
            stop.track(Task {
                try? await Task.sleep(for: .milliseconds(100))
                left.add("left")
            })
        }
        stop.fire(2)
        await stop.waitForTables()
        #expect(left.all.count == 3)
    }
}
