import Foundation
import Bots
import Games
import Match
import Session
import Synchronization

/// Runs `parlor bench turns`: the round trip of a guest's turn over loopback
/// TCP (send the whole blob, the host validates and commits, CONFIRM comes
/// back) against a raw TCP ping-pong of the same number of bytes, measured
/// in the same run. Prints p50, p99 and their ratios.
func runBenchTurns(_ options: BenchTurnsOptions) async throws -> ExitCode {
    _ = try? DescriptorLimit.raise()
    var turns: [Duration] = []
    var frameBytes: [Int] = []
    var matches = 0
    var generator = SplitMix64(seed: 7)
    while turns.count < options.count {
        let (measured, bytes) = try await benchOneMatch(seed: generator.next(), remaining: options.count - turns.count)
        turns += measured
        frameBytes += bytes
        matches += 1
    }
    let payload = frameBytes.isEmpty ? 200 : frameBytes.reduce(0, +) / frameBytes.count
    let raw = try await RawPingPong.measure(payloadBytes: payload, count: options.count)
    let turnStats = Percentiles(turns), rawStats = Percentiles(raw)
    Console.write("""
        parlor bench turns: \(turns.count) guest turns in \(matches) connect4 matches over 127.0.0.1
          turn round trip (TURN with the whole blob -> validate -> commit -> CONFIRM), ~\(payload) bytes out
            p50 \(turnStats.p50.microseconds) µs   p99 \(turnStats.p99.microseconds) µs
          raw TCP ping-pong of \(payload) bytes each way
            p50 \(rawStats.p50.microseconds) µs   p99 \(rawStats.p99.microseconds) µs
          ratio turn/raw: p50 \(ratio(turnStats.p50, rawStats.p50))x   p99 \(ratio(turnStats.p99, rawStats.p99))x

        """)
    return .success
}

/// Plays one connect4 match between two random players over loopback,
/// timing the guest's turns from `play` to `.committed`.
private func benchOneMatch(seed: UInt64, remaining: Int) async throws -> ([Duration], [Int]) {
    let listener = try TCPListener.listen(port: 0, on: .specific(try SocketAddress(ipAddress: "127.0.0.1", port: 0)))
    defer { listener.close() }
    let host = try MatchHost(configuration: HostConfiguration(
        gameID: Connect4.id, hostName: "Host", hostPlayerID: .random(), seatPreference: .first,
        appVersion: ParlorVersion.current))
    let acceptor = Task { await host.serve(listener) }
    defer { acceptor.cancel() }
    let connection = try await TCPConnection.connect(host: "127.0.0.1", port: listener.port)
    async let joining = Guest.join(over: connection.byteStream(),
                                   hello: Hello(appVersion: ParlorVersion.current, playerID: .random(), playerName: "Guest"))
    let hosted = try await host.waitForGuest()
    let joined = try await joining
    let random = Mutex(SplitMix64(seed: seed))
    let (hostController, _) = hosted.makeController { id in
        BotParticipant(playerID: id) { game, _ in random.withLock { game.legalMoves.randomElement(using: &$0) } }
    }
    let (guestController, local) = joined.makeController { LocalParticipant(playerID: $0) }
    let events = await guestController.events()
    try await hostController.start()
    try await guestController.start()
    var times: [Duration] = [], sizes: [Int] = []
    for await event in events {
        if times.count >= remaining { break }
        guard case .turnBegan(let seat, let state) = event, seat == joined.seat else { continue }
        guard let move = random.withLock({ state.game.legalMoves.randomElement(using: &$0) }) else { break }
        let next = try state.applying(.move(move, by: seat), now: wallClockMilliseconds())
        sizes.append(FrameFormat.headerSize + 4 + MatchBlob.encode(next).count)
        let started = ContinuousClock.now
        guard case .committed = await local.play(move) else { break }
        times.append(ContinuousClock.now - started)
    }
    if await !guestController.isStopped { _ = await local.quit() }
    _ = await hostController.finished()
    await host.shutdown()
    return (times, sizes)
}

/// p50 and p99 of a set of durations.
struct Percentiles {
    let p50: Duration, p99: Duration
    init(_ values: [Duration]) {
        let sorted = values.sorted()
        func at(_ fraction: Double) -> Duration {
            guard !sorted.isEmpty else { return .zero }
            return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction))]
        }
        p50 = at(0.5)
        p99 = at(0.99)
    }
}

extension Duration {
    /// Whole microseconds.
    var microseconds: Int64 { components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000 }
}

private func ratio(_ a: Duration, _ b: Duration) -> String {
    guard b > .zero else { return "-" }
    return String(format: "%.1f", Double(a.microseconds) / Double(max(1, b.microseconds)))
}

