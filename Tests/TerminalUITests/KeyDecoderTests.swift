import Testing
@testable import TerminalUI

@Suite("Key decoding")
struct KeyDecoderTests {
    static let table: [([UInt8], [Key])] = [
        (Array("\u{1B}[A".utf8), [.up]),
        (Array("\u{1B}[B".utf8), [.down]),
        (Array("\u{1B}[C".utf8), [.right]),
        (Array("\u{1B}[D".utf8), [.left]),
        (Array("\u{1B}OA".utf8), [.up]),
        (Array("\u{1B}OD".utf8), [.left]),
        (Array("\u{1B}[1;5C".utf8), [.right]),  // Ctrl+Right still moves right
        (Array("\u{1B}[H".utf8), [.home]),
        (Array("\u{1B}[4~".utf8), [.end]),
        (Array("\u{1B}[3~".utf8), [.delete]),
        (Array("\u{1B}OM".utf8), [.enter]),
        (Array("4".utf8), [.character("4")]),
        (Array("b3".utf8), [.character("b"), .character("3")]),
        ([0x0D], [.enter]),
        ([0x0A], [.enter]),
        ([0x0D, 0x0A], [.enter]),
        ([0x03], [.interrupt]),
        ([0x7F], [.backspace]),
        ([0x08], [.backspace]),
        ([0x09], [.tab]),
        ([0x04], [.endOfTransmission]),
        ([0x01], [.control(1)]),
        (Array("é".utf8), [.character("é")]),
        (Array("q\u{1B}[Cy".utf8), [.character("q"), .right, .character("y")]),
        (Array("\u{1B}[Z".utf8), [.unknown]),
        (Array("\u{1B}x".utf8), [.escape, .character("x")]),
    ]

    @Test("byte sequences decode to keys", arguments: table)
    func decodes(bytes: [UInt8], expected: [Key]) {
        var decoder = KeyDecoder()
        #expect(decoder.feed(bytes) == expected)
        #expect(!decoder.hasPendingBytes)
    }

    @Test("a sequence split at every byte boundary still decodes to one key", arguments: table)
    func splitSequences(bytes: [UInt8], expected: [Key]) {
        var decoder = KeyDecoder()
        var keys: [Key] = []
        for byte in bytes { keys += decoder.feed([byte]) }
        #expect(keys == expected)
    }

    @Test("a lone Escape waits for more bytes and is reported on flush")
    func loneEscape() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0x1B]).isEmpty)
        #expect(decoder.hasPendingBytes)
        #expect(decoder.flush() == [.escape])
        #expect(!decoder.hasPendingBytes)
    }

    @Test("ESC [ with nothing after it flushes as Escape then '['")
    func truncatedCSI() {
        var decoder = KeyDecoder()
        #expect(decoder.feed(Array("\u{1B}[".utf8)).isEmpty)
        #expect(decoder.flush() == [.escape, .character("[")])
    }

    @Test("an endless escape sequence is dropped, not buffered forever")
    func overlongSequence() {
        var decoder = KeyDecoder()
        let keys = decoder.feed(Array("\u{1B}[".utf8) + Array(repeating: UInt8(ascii: "1"), count: 100) + Array("A4".utf8))
        #expect(keys.contains(.unknown))
        #expect(keys.last == .character("4"))
        #expect(!decoder.hasPendingBytes)
    }
}
