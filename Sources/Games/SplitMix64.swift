/// A small, seeded pseudo-random generator (SplitMix64, Steele, Lea and Flood 2014).
///
/// Everything parlor draws at random from a seed uses one of these, so that
/// `--seed N` reproduces a game move for move and tests replay exactly:
/// bots' choices, `--seat random`, the benchmarks' random players. The
/// system generator cannot be seeded.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose whole output is fixed by `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 pseudo-random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A seed for an independent generator, so that one seed can fan out to
    /// several bots without their choices being correlated.
    public mutating func derivedSeed() -> UInt64 { next() }
}
