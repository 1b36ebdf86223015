import Foundation
import Testing

@testable import Discovery

@Suite struct StandardErrorDiversionTests {
    @Test func writesToDescriptorTwoLandInTheFileUntilRestored() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("parlor-stderr-\(UUID()).log").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let before = fcntl(2, F_GETFL)
        let diversion = try StandardErrorDiversion.divert(to: path)
        // What a C library would do from any thread: write straight to fd 2.
        let text = "avahi says: unsupported call\n"
        _ = text.withCString { write(2, $0, strlen($0)) }
        diversion.restore()
        diversion.restore()  // harmless twice
        let logged = try String(contentsOfFile: path, encoding: .utf8)
        #expect(logged == text)
        #expect(fcntl(2, F_GETFL) == before)
    }

    @Test func anUnopenableFileIsAnErrorAndLeavesStandardErrorAlone() {
        #expect(throws: DiscoveryError.cannotDivertStandardError(path: "/nonexistent-dir/x.log", errno: ENOENT)) {
            _ = try StandardErrorDiversion.divert(to: "/nonexistent-dir/x.log")
        }
    }
}
