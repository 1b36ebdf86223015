import Testing
@testable import Secure

/// The bytes of a hex literal in a test (spaces allowed for line-wrapped vectors).
func bytes(_ hex: String, sourceLocation: SourceLocation = #_sourceLocation) -> [UInt8] {
    let compact = hex.filter { !$0.isWhitespace }
    guard let decoded = Hex.decode(compact) else {
        Issue.record("not hex: \(hex)", sourceLocation: sourceLocation)
        return []
    }
    return decoded
}

/// The bytes of an ASCII string.
func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }

/// Lower-case hex of `bytes`, for readable failures.
func hex(_ bytes: [UInt8]) -> String { Hex.encode(bytes) }
