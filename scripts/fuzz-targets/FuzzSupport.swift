// Shared by every fuzz target (scripts/fuzz builds it into each one).
//
// A target file defines `fuzzOne(_:)` (the body of libFuzzer's entry) and
// `fuzzSeeds()` (real inputs made with the project's own encoders). This file
// provides the C entry points around them, so that the same binary both fuzzes
// and, with PARLOR_FUZZ_WRITE_SEEDS=DIR, writes its seed corpus and exits.
@preconcurrency import Glibc

@_cdecl("LLVMFuzzerTestOneInput")
public func parlorFuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    fuzzOne(bytes)
    return 0
}

/// libFuzzer calls this once before fuzzing. Writing seeds here, rather than in
/// a separate program, keeps a target's knowledge of its input next to its entry.
@_cdecl("LLVMFuzzerInitialize")
public func parlorFuzzInitialize(_ argc: UnsafeMutableRawPointer?, _ argv: UnsafeMutableRawPointer?) -> Int32 {
    guard let directory = getenv("PARLOR_FUZZ_WRITE_SEEDS").map({ String(cString: $0) }) else { return 0 }
    var written = 0
    for (name, bytes) in fuzzSeeds() {
        let path = "\(directory)/seed-\(name)"
        guard let file = fopen(path, "wb") else {
            fputs("cannot write \(path): \(String(cString: strerror(errno)))\n", stderr)
            exit(1)
        }
        let count = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, file) }
        fclose(file)
        guard count == bytes.count else { fputs("short write to \(path)\n", stderr); exit(1) }
        written += 1
    }
    fputs("wrote \(written) seeds to \(directory)\n", stderr)
    exit(0)
}

/// Fails the run when an invariant does not hold: libFuzzer sees the abort,
/// saves the input as a crash artifact and stops.
func fuzzCheck(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
               file: StaticString = #fileID, line: UInt = #line) {
    guard !condition() else { return }
    fputs("INVARIANT BROKEN at \(file):\(line): \(message())\n", stderr)
    abort()
}

/// Chunk sizes for feeding a stream decoder the same bytes in uneven pieces:
/// 1, 2, 3, 5, 8, ... restarting at 1, so every small split point is tried.
func unevenChunks(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
    var chunks: [ArraySlice<UInt8>] = []
    var start = 0
    var (size, next) = (1, 2)
    while start < bytes.count {
        let end = min(bytes.count, start + size)
        chunks.append(bytes[start..<end])
        start = end
        (size, next) = next > 64 ? (1, 2) : (next, size + next)
    }
    return chunks
}

/// A deterministic generator for seeds: seeds must be the same on every run.
struct SeedRandom: RandomNumberGenerator {
    var state: UInt64
    init(_ seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
