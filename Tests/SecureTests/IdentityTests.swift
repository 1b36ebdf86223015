import Foundation
#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Testing
@testable import Secure

@Suite struct FingerprintTests {
    let key: IdentityKeyPair

    init() throws {
        key = try IdentityKeyPair(seed: [UInt8](repeating: 42, count: 32))
    }

    @Test func theDisplayFormIsEightGroupsOfSeven() {
        let shown = key.fingerprint.description
        let groups = shown.split(separator: "-")
        #expect(groups.count == 8)
        #expect(groups.allSatisfy { $0.count == 7 })
        #expect(shown.allSatisfy { $0 == "-" || Fingerprint.alphabet.contains($0) })
        #expect(key.fingerprint.short == groups.prefix(2).joined(separator: "-"))
        #expect(key.fingerprint.digest == Sodium.sha256(key.publicKey.bytes))
    }

    @Test func typedFormsParseIgnoringCaseAndSeparators() throws {
        let fingerprint = key.fingerprint
        let shown = fingerprint.description
        #expect(try Fingerprint.parse(shown) == fingerprint)
        #expect(try Fingerprint.parse(shown.lowercased()) == fingerprint)
        #expect(try Fingerprint.parse(fingerprint.symbols) == fingerprint)
        #expect(try Fingerprint.parse(shown.replacingDashes(with: " ")) == fingerprint)
        let withDigits = String(shown.map { $0 == "O" ? "0" : $0 == "I" ? "1" : $0 == "B" ? "8" : $0 })
        #expect(try Fingerprint.parse(withDigits) == fingerprint)
    }

    /// Every single-symbol typo is caught by its quarter's check symbol.
    @Test func everySingleTypoIsRefused() throws {
        let symbols = Array(key.fingerprint.symbols)
        for position in symbols.indices {
            for replacement in Fingerprint.alphabet where replacement != symbols[position] {
                var typed = symbols
                typed[position] = replacement
                do {
                    _ = try Fingerprint.parse(String(typed))
                    Issue.record("typo at \(position) (\(replacement)) was accepted")
                } catch {
                    let rejected = error == .checkCharacterMismatch(quarter: position / 14 + 1) || error == .notCanonical
                    #expect(rejected)
                }
            }
        }
    }

    @Test func swappedNeighboursAreMostlyRefused() {
        let symbols = Array(key.fingerprint.symbols)
        var accepted = 0
        var swaps = 0
        for position in 0..<(symbols.count - 1) where symbols[position] != symbols[position + 1] {
            var typed = symbols
            typed.swapAt(position, position + 1)
            swaps += 1
            if (try? Fingerprint.parse(String(typed))) != nil { accepted += 1 }
        }
        #expect(accepted * 10 <= swaps, "\(accepted) of \(swaps) swaps accepted")
    }

    @Test(arguments: [
        ("ABC", FingerprintError.wrongLength(count: 3)),
        ("", .wrongLength(count: 0)),
        ("AAAAAAA-AAAAAAA-AAAAAAA-AAAAAAA-AAAAAAA-AAAAAAA-AAAAAAA-AAAAAA9", .invalidCharacter("9")),
    ])
    func malformedInputIsRefusedWithItsReason(_ typed: String, _ expected: FingerprintError) {
        #expect(throws: expected) { try Fingerprint.parse(typed) }
    }
}

@Suite struct IdentityKeyTests {
    @Test func signaturesVerifyOnlyForTheSignedMessage() throws {
        let key = try IdentityKeyPair.generate()
        let signature = try key.signature(for: ascii("handshake hash"))
        #expect(key.publicKey.isValidSignature(signature, for: ascii("handshake hash")))
        #expect(!key.publicKey.isValidSignature(signature, for: ascii("handshake hasH")))
        #expect(!(try IdentityKeyPair.generate()).publicKey.isValidSignature(signature, for: ascii("handshake hash")))
    }

    /// The Noise static key derived from the identity is what the peer expects,
    /// and a Noise handshake with it completes with the binding checkable.
    @Test func theNoiseStaticKeyIsBoundToTheIdentity() throws {
        let guest = try IdentityKeyPair.generate()
        let host = try IdentityKeyPair.generate()
        let guestStatic = try guest.noiseStaticKey()
        #expect(try guest.publicKey.noiseStaticPublicKey() == guestStatic.publicKey)
        var initiator = try NoiseHandshake(pattern: .xx, role: .initiator, staticKey: guestStatic)
        var responder = try NoiseHandshake(pattern: .xx, role: .responder, staticKey: host.noiseStaticKey())
        _ = try responder.readMessage(initiator.writeMessage())
        _ = try initiator.readMessage(responder.writeMessage(payload: host.publicKey.bytes))
        _ = try responder.readMessage(initiator.writeMessage(payload: guest.publicKey.bytes))
        let hostSeen = try #require(responder.transport)
        let guestSeen = try #require(initiator.transport)
        #expect(guest.publicKey.isNoiseStaticKey(hostSeen.remoteStaticKey))
        #expect(host.publicKey.isNoiseStaticKey(guestSeen.remoteStaticKey))
        #expect(!host.publicKey.isNoiseStaticKey(hostSeen.remoteStaticKey))
    }

    @Test func wrongSizesAreRefused() {
        #expect(throws: IdentityError.wrongLength(what: "Ed25519 seed", expected: 32, actual: 31)) {
            try IdentityKeyPair(seed: [UInt8](repeating: 0, count: 31))
        }
        #expect(throws: IdentityError.wrongLength(what: "Ed25519 public key", expected: 32, actual: 0)) {
            try PlayerPublicKey(bytes: [])
        }
    }
}

@Suite struct IdentityFileTests {
    /// A fresh directory under /tmp, removed with its files at the end.
    final class TemporaryDirectory {
        let path: String
        init() throws {
            var template = Array("/tmp/parlor-secure-XXXXXX".utf8CString)
            let made = template.withUnsafeMutableBufferPointer { buffer in
                buffer.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) }
            }
            path = try #require(made)
        }
        deinit {
            try? FileManager.default.removeItem(atPath: path)
        }
        func file(_ name: String) -> String { "\(path)/\(name)" }
        func write(_ text: String, to name: String, mode: mode_t) {
            let descriptor = open(file(name), O_WRONLY | O_CREAT | O_TRUNC, mode)
            _ = Array(text.utf8).withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            fchmod(descriptor, mode)
            close(descriptor)
        }
        func mode(of name: String) -> UInt32 {
            var status = stat()
            stat(file(name), &status)
            return UInt32(status.st_mode) & 0o777
        }
    }

    @Test func aWrittenKeyReadsBackWithMode0600() throws {
        let directory = try TemporaryDirectory()
        let key = try IdentityKeyPair.generate()
        let path = directory.file("identity")
        try IdentityFile.write(key, to: path)
        #expect(directory.mode(of: "identity") == 0o600)
        let read = try IdentityFile.read(from: path)
        #expect(read.seed == key.seed)
        #expect(read.fingerprint == key.fingerprint)
        // Overwriting replaces the key and leaves no temporary file behind.
        let replacement = try IdentityKeyPair.generate()
        try IdentityFile.write(replacement, to: path)
        #expect(try IdentityFile.read(from: path).fingerprint == replacement.fingerprint)
        #expect(directory.mode(of: "identity.tmp-\(getpid())") == 0)
    }

    @Test(arguments: [0o644 as mode_t, 0o640, 0o604, 0o660])
    func looseFilePermissionsAreRefused(_ mode: mode_t) throws {
        let directory = try TemporaryDirectory()
        directory.write(IdentityFile.format(try IdentityKeyPair.generate()), to: "identity", mode: mode)
        let path = directory.file("identity")
        #expect(throws: KeyFileError.loosePermissions(path: path, mode: UInt32(mode))) {
            try IdentityFile.read(from: path)
        }
    }

    @Test func aMissingFileAndADirectoryAreReportedAsSuch() throws {
        let directory = try TemporaryDirectory()
        #expect(throws: KeyFileError.notFound(path: directory.file("none"))) { try IdentityFile.read(from: directory.file("none")) }
        #expect(throws: KeyFileError.notAFile(path: directory.path)) { try IdentityFile.read(from: directory.path) }
    }

    @Test func damagedContentIsRefusedWithItsLineAndReason() throws {
        let key = try IdentityKeyPair.generate()
        let good = IdentityFile.format(key)
        let other = try IdentityKeyPair.generate()
        let cases: [(String, Int, KeyFileDamage)] = [
            ("", 1, .missingVersionLine),
            ("parlor-identity 2\n", 1, .unknownVersion("2")),
            (good.replacingFirst("seed ", with: "sed "), 4, .unknownLine("sed \(Hex.encode(key.seed))".prefixString(40))),
            (good.replacingFirst("seed \(Hex.encode(key.seed))", with: "seed zz"), 4, .badValue(field: "seed")),
            (good + "seed \(Hex.encode(key.seed))\n", 5, .duplicateField("seed")),
            ("parlor-identity 1\npublic-key \(Hex.encode(key.publicKey.bytes))\n", 0, .missingField("seed")),
            (good.replacingFirst(Hex.encode(key.publicKey.bytes), with: Hex.encode(other.publicKey.bytes)), 0, .publicKeyMismatch),
        ]
        for (text, line, reason) in cases {
            #expect(throws: KeyFileError.damaged(path: "id", line: line, reason: reason)) { try IdentityFile.parse(text, path: "id") }
        }
        let directory = try TemporaryDirectory()
        directory.write("\u{FF}garbage", to: "binary", mode: 0o600)
        _ = Array<UInt8>([0xff, 0xfe, 0x00]).withUnsafeBytes { raw in
            let descriptor = open(directory.file("binary"), O_WRONLY | O_TRUNC)
            defer { close(descriptor) }
            return Glibc.write(descriptor, raw.baseAddress, raw.count)
        }
        #expect(throws: KeyFileError.damaged(path: directory.file("binary"), line: 0, reason: .notText)) {
            try IdentityFile.read(from: directory.file("binary"))
        }
    }
}

extension String {
    func replacingDashes(with separator: String) -> String {
        split(separator: "-").joined(separator: separator)
    }

    func replacingFirst(_ target: String, with replacement: String) -> String {
        replacing(target, with: replacement, maxReplacements: 1)
    }

    func prefixString(_ count: Int) -> String { String(prefix(count)) }
}

/// A library user gets the same sentence as the command line for a key file that cannot be used.
@Suite("Key file errors say what is wrong and how to fix it")
struct KeyFileErrorSentenceTests {
    @Test("every key file error names its file; loose permissions say chmod 600, damage says which line and what", arguments: [
        KeyFileError.notFound(path: "/k"), .unreadable(path: "/k", call: "open", errno: EACCES), .notAFile(path: "/k"),
        .loosePermissions(path: "/k", mode: 0o644), .damaged(path: "/k", line: 3, reason: .badValue(field: "seed")),
        .unwritable(path: "/k", call: "rename", errno: ENOSPC),
    ])
    func sentences(error: KeyFileError) {
        let sentence = "\(error)"
        #expect(sentence.contains("/k"), "\(sentence)")
        switch error {
        case .loosePermissions: #expect(sentence.contains("mode 644") && sentence.contains("chmod 600 /k"), "\(sentence)")
        case .damaged: #expect(sentence.contains("line 3: 'seed' is not 64 hex digits"), "\(sentence)")
        case .unreadable: #expect(sentence.contains("open: Permission denied"), "\(sentence)")
        case .unwritable: #expect(sentence.contains("rename: No space left on device"), "\(sentence)")
        default: break
        }
    }
}
