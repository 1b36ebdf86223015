@testable import Bench
import Foundation
import Testing

/// The figures every bench prints: percentiles, medians, goals and the floor.
@Suite("Bench: percentiles, medians, goals and the floor")
struct FiguresTests {
    @Test("p50 and p99 are the nearest rank below, in any order; none is zero")
    func percentiles() {
        let hundred = (1...100).map { Duration.microseconds($0) }.shuffled()
        let figures = Percentiles(hundred)
        #expect(figures.p50 == .microseconds(50))
        #expect(figures.p99 == .microseconds(99))
        #expect(Percentiles([.milliseconds(3)]) == Percentiles([.milliseconds(3), .milliseconds(3)]))
        #expect(Percentiles([]).p50 == .zero && Percentiles([]).p99 == .zero)
        // One slow turn in a hundred moves p99, not p50.
        let oneSlow = Percentiles(Array(repeating: Duration.microseconds(100), count: 99) + [.seconds(1)])
        #expect(oneSlow.p50 == .microseconds(100))
        #expect(oneSlow.p99 == .microseconds(100))
        #expect(Percentiles(Array(repeating: Duration.microseconds(100), count: 98) + [.seconds(1), .seconds(1)]).p99 == .seconds(1))
    }

    @Test("the turn goals: full p50 at most 1.3x the floor, p99 at most 2x, the protocol's p50 at most 1.5x the plain ping-pong")
    func turnGoals() {
        func figures(full: (Int64, Int64), protocolOnly: Int64, floor: (Int64, Int64), plain: Int64) -> TurnsBench.Figures {
            func percentiles(_ p50: Int64, _ p99: Int64) -> Percentiles {
                Percentiles(Array(repeating: Duration.microseconds(p50), count: 98) + [.microseconds(p99), .microseconds(p99)])
            }
            let none = Percentiles([])
            return TurnsBench.Figures(fullTurns: 100, full: percentiles(full.0, full.1), protocolTurns: 100,
                                      protocolOnly: percentiles(protocolOnly, protocolOnly), request: 150, reply: 28,
                                      plain: percentiles(plain, plain), durable: percentiles(floor.0, floor.1), eventLoop: none,
                                      threadedFull: none, threadedProtocol: none, group: BenchGroupCommit.Figures(grouped: none, separate: none, framesPerSync: 0))
        }
        let met = figures(full: (130, 400), protocolOnly: 30, floor: (100, 200), plain: 20)
        #expect(met.fullP50Met && met.fullP99Met && met.protocolP50Met)
        let missed = figures(full: (131, 401), protocolOnly: 31, floor: (100, 200), plain: 20)
        #expect(!missed.fullP50Met && !missed.fullP99Met && !missed.protocolP50Met)
    }

    @Test("whole microseconds, rounded down")
    func microseconds() {
        #expect(Duration.milliseconds(2).microseconds == 2000)
        #expect((Duration.seconds(1) + .nanoseconds(1999)).microseconds == 1_000_001)
    }

    @Test("the startup median: the middle value, or the mean of the middle two")
    func median() {
        #expect(StartupBench.median([.milliseconds(9), .milliseconds(1), .milliseconds(5)]) == .milliseconds(5))
        #expect(StartupBench.median([.milliseconds(4), .milliseconds(1), .milliseconds(2), .milliseconds(8)]) == .milliseconds(3))
        #expect(StartupBench.median([]) == .zero)
    }

    @Test("the startup goal: at most 1.5x the trivial binary is met; the trivial binary itself has no ratio")
    func startupGoal() {
        #expect(StartupBench.Case(label: "a", median: .milliseconds(3), ratio: 1.5).goalMet)
        #expect(!StartupBench.Case(label: "a", median: .milliseconds(3), ratio: 1.51).goalMet)
        #expect(StartupBench.Case(label: "trivial", median: .milliseconds(2), ratio: nil).goalMet)
    }

    @Test("the floor over a real loopback socket: one positive time per timed round trip")
    func plainFloor() async throws {
        let times = try await BenchFloor.measure(request: 200, reply: 30, count: 50, durableIn: nil, warmup: 2)
        #expect(times.count == 50)
        #expect(times.allSatisfy { $0 > .zero && $0 < .seconds(10) })
    }

    @Test("the durable floor appends in the directory given and leaves no file behind")
    func durableFloor() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("floor-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let times = try await BenchFloor.measure(request: 64, reply: 64, count: 10, durableIn: directory, warmup: 1)
        #expect(times.count == 10)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    }

    @Test("the durable floor's CPU per round is the answering thread's: more with the sync than without, never more than the round trip took")
    func floorCPU() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("floor-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let durable = try await BenchFloor.measureWithCPU(request: 200, reply: 200, count: 100, durableIn: directory, warmup: 5)
        let plain = try await BenchFloor.measureWithCPU(request: 200, reply: 200, count: 100, durableIn: nil, warmup: 5)
        #expect(durable.times.count == 100 && plain.times.count == 100)
        // One thread's CPU over the timed rounds cannot exceed their wall time.
        let wall = durable.times.reduce(Duration.zero, +) / durable.times.count
        #expect(durable.answerCPU > .zero && durable.answerCPU <= wall)
        // An append and an fdatasync cost the answering thread more than a read and a write alone.
        #expect(durable.answerCPU > plain.answerCPU)
    }

    @Test("a durable floor in a directory that does not exist fails, naming the journal it could not open")
    func durableFloorFails() async throws {
        await #expect {
            _ = try await BenchFloor.measure(request: 64, reply: 64, count: 1, durableIn: "/nonexistent-\(UUID().uuidString)")
        } throws: { error in
            (error as? BenchFloor.Failure)?.description.hasPrefix("open /nonexistent-") == true
        }
    }

    @Test("bench tables needs 64 open files beyond one per guest")
    func tablesDescriptors() {
        #expect(TablesBench.descriptorsNeeded(tables: 1000) == 1064)
    }
}
