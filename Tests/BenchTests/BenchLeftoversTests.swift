@testable import Bench
import Foundation
@preconcurrency import Glibc
import Testing

/// A bench's store left by a run that was killed is removed; nothing else is.
@Suite("Bench: stores left by runs cut short")
struct BenchLeftoversTests {
    /// The id of a process that has ended.
    static func deadProcess() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }

    @Test("a store named after a process that is gone is removed, with all it holds; a running process's, this one's and others stay")
    func removesOnlyTheDead() throws {
        let parent = NSTemporaryDirectory() + "parlor-leftovers-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let dead = try Self.deadProcess()
        let names = ["bench-turns-\(dead)", "bench-tables-\(dead)-100", "bench-turns-1", "bench-turns-\(getpid())",
                     "bench-turns-x", "bench-turnsy", "matches"]
        for name in names {
            try FileManager.default.createDirectory(atPath: parent + "/" + name + "/parlor/matches", withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: parent + "/" + name + "/parlor/matches/a.match", contents: Data("m".utf8)))
        }
        #expect(BenchLeftovers.remove(in: parent, prefix: "bench-turns-") == ["bench-turns-\(dead)"])
        #expect(BenchLeftovers.remove(in: parent, prefix: "bench-tables-") == ["bench-tables-\(dead)-100"])
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: parent))
        #expect(left == Set(names.dropFirst(2)))
        #expect(BenchLeftovers.remove(in: parent + "/missing", prefix: "bench-turns-").isEmpty)
    }
}
