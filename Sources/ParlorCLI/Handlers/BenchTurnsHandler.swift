import Foundation
import Bots
import Games
import Match
import Session
import Store
import Synchronization

/// Runs `parlor bench turns`: what a guest waits for after a move, measured
/// against a floor in the same run.
///
/// - full turn: a real host and guest on 127.0.0.1, each with its
///   `MatchRecorder` saving into a store on the same file system as the
///   user's (`--dir` points elsewhere), the host saving before CONFIRM leaves;
/// - protocol only: the same turn with no store (the wire and the controllers);
/// - the floor: a plain blocking ping-pong of the same bytes between two
///   threads, and the same with one durable append (write + fdatasync of the
///   turn's bytes) on the store's file system before each answer.
///
/// Prints p50, p99 and each ratio to its floor.
func runBenchTurns(_ options: BenchTurnsOptions) async throws -> ExitCode {
    _ = try? DescriptorLimit.raise()
    let parent = options.directory ?? LocalData.directory
    let directory = parent + "/bench-turns-\(getpid())"
    let store = MatchStore(directory: directory)
    do { try store.createDirectory() } catch {
        Console.writeError("parlor: bench turns: cannot make a store in \(parent): \(error)\n")
        return .failure
    }
    defer { removeBenchStore(directory) }
    var generator = SplitMix64(seed: 7)
    let reply = Message.confirm(sequence: 1, stateHash: 0, deadline: 0).encoded.count
    var full: [Duration] = [], protocolOnly: [Duration] = [], plain: [Duration] = [], durable: [Duration] = []
    var request = 0
    // Taken in turns, a slice of each at a time, so a change in the machine's
    // load (a shared disk, other processes) weighs on the turn and its floor alike.
    let slices = max(1, min(10, options.count / 100))
    for slice in 0..<slices {
        let count = options.count / slices + (slice < options.count % slices ? 1 : 0)
        let measured = try await timeTurns(count: count, generator: &generator, store: store)
        full += measured.times
        if request == 0 { request = measured.bytes }
        protocolOnly += try await timeTurns(count: count, generator: &generator, store: nil).times
        plain += try await BenchFloor.measure(request: request, reply: reply, count: count, durableIn: nil)
        durable += try await BenchFloor.measure(request: request, reply: reply, count: count, durableIn: directory)
    }
    let fullStats = Percentiles(full), protocolStats = Percentiles(protocolOnly)
    let plainStats = Percentiles(plain), floorStats = Percentiles(durable)
    Console.write("""
        parlor bench turns: \(full.count) + \(protocolOnly.count) guest turns in connect4 matches over 127.0.0.1, \
        ~\(request) bytes out, \(reply) back
          full turn (real host and guest, each saving to a store in \(parent))
            p50 \(fullStats.p50.microseconds) µs   p99 \(fullStats.p99.microseconds) µs   \
        ratio to floor: p50 \(ratio(fullStats.p50, floorStats.p50))x   p99 \(ratio(fullStats.p99, floorStats.p99))x
          protocol only (no store)
            p50 \(protocolStats.p50.microseconds) µs   p99 \(protocolStats.p99.microseconds) µs   \
        ratio to plain ping-pong: p50 \(ratio(protocolStats.p50, plainStats.p50))x   p99 \(ratio(protocolStats.p99, plainStats.p99))x
          floor: plain blocking ping-pong + one durable append (write + fdatasync of \(request) bytes, same file system)
            p50 \(floorStats.p50.microseconds) µs   p99 \(floorStats.p99.microseconds) µs
          plain blocking ping-pong (two threads, no event loop, no tasks)
            p50 \(plainStats.p50.microseconds) µs   p99 \(plainStats.p99.microseconds) µs
          goals: full p50 <= 1.3x floor, p99 <= 2x; protocol only p50 <= 1.5x plain

        """)
    return .success
}

/// Times `count` guest turns over as many matches as it takes; with `store`,
/// both sides record the match there as `parlor host` and `parlor join` do.
private func timeTurns(count: Int, generator: inout SplitMix64, store: MatchStore?) async throws -> (times: [Duration], bytes: Int) {
    var turns: [Duration] = [], frameBytes: [Int] = []
    while turns.count < count {
        let (measured, bytes) = try await benchOneMatch(seed: generator.next(), remaining: count - turns.count, store: store)
        turns += measured
        frameBytes += bytes
        if measured.isEmpty { break }
    }
    return (turns, frameBytes.isEmpty ? 200 : frameBytes.reduce(0, +) / frameBytes.count)
}

/// Removes the bench's store (its match, journal and lock files) and its directory.
private func removeBenchStore(_ directory: String) {
    guard let dir = opendir(directory) else { return }
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        if name != ".", name != ".." { unlink(directory + "/" + name) }
    }
    closedir(dir)
    rmdir(directory)
}

/// Plays one connect4 match between two random players over loopback,
/// timing the guest's turns from `play` to `.committed`.
private func benchOneMatch(seed: UInt64, remaining: Int, store: MatchStore?) async throws -> ([Duration], [Int]) {
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
    var recordings: [Task<Void, Never>] = []
    if let store {
        // As SessionRunner.playAsHost and playAsGuest do it.
        let hostRecorder = MatchRecorder(store: store, record: StoredMatch(
            state: hosted.initialState, role: .host, localSeat: hosted.hostSeat,
            lastActivity: wallClockMilliseconds(), seatToken: hosted.seatToken.bytes, listenPort: listener.port))
        hosted.remote.persistBeforeSending { try hostRecorder.saveBeforeRevealing($0) }
        let guestRecorder = MatchRecorder(store: store, record: StoredMatch(
            state: joined.initialState, role: .guest, localSeat: joined.seat,
            lastActivity: wallClockMilliseconds(), peerAddress: "127.0.0.1:\(listener.port)", seatToken: joined.seatToken.bytes))
        joined.remote.persistBeforeAcknowledging { guestRecorder.saveNow($0) }
        recordings.append(await hostRecorder.follow(hostController))
        recordings.append(await guestRecorder.follow(guestController))
    }
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
    for recording in recordings { await recording.value }
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

