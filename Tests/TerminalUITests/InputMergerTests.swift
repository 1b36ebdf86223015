import Testing
@testable import TerminalUI

/// One stream of everything a screen outside a match waits for.
@Suite struct InputMergerTests {
    @Test func outsideEventsComeInOrderThenTheDeadlineAndCloseEndsTheStream() async {
        let merger = InputMerger<Int>()
        let (events, source) = AsyncStream.makeStream(of: Int.self)
        merger.forward(events)
        source.yield(1)
        source.yield(2)
        merger.deadline(after: .milliseconds(200))
        var seen: [String] = []
        for await input in merger.stream {
            switch input {
            case .event(let number): seen.append("event \(number)")
            case .deadline: seen.append("deadline"); merger.close()
            case .redraw: seen.append("redraw")
            default: seen.append("other")
            }
            if seen.count == 2 { merger.redraw() }
        }
        #expect(seen == ["event 1", "event 2", "redraw", "deadline"])
    }

    @Test func qAndEscStopAWaitAndOtherKeysDoNot() {
        #expect(WaitingKeys.stops(.character("q")) && WaitingKeys.stops(.character("Q")) && WaitingKeys.stops(.escape))
        #expect(!WaitingKeys.stops(.character("b")) && !WaitingKeys.stops(.enter))
    }
}
