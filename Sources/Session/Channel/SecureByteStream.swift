import Secure
import Synchronization

/// How a side sets up its connections: protocol 3's encrypted channel, or clear frames.
public enum ChannelSecurity: Sendable {
    /// Clear frames as protocol 2 sent them: for tests of the frame layer and
    /// for measuring what encryption costs, never chosen by the command line
    /// without `--allow-unencrypted`.
    case clear
    /// Protocol 3: every connection encrypted and authenticated (section 19).
    case encrypted(SecureChannelOptions)
}

/// What one side brings to protocol 3's channel.
public struct SecureChannelOptions: Sendable {
    /// This player's identity: its key proves who we are.
    public var identity: IdentityKeyPair
    /// Host: admit a guest that speaks only clear frames (protocol 2); it is told nothing more.
    public var allowClearGuests = false
    /// Host: told, with the peer's address, when a clear guest is admitted.
    public var onClearGuest: @Sendable (String) -> Void = { _ in }
    /// Judges the peer's proved key before anything of the frame stream goes
    /// out: nil accepts, a sentence refuses (and is what both sides are told).
    public var verifyPeer: @Sendable (PlayerPublicKey) -> String? = { _ in nil }
    /// Sealed records per direction between rekeys.
    public var rekeyInterval = SecureChannel.defaultRekeyInterval
    /// Connecting side: the code to prove in the handshake (section 20.4), nil for none.
    public var passcode: PasscodeOffer?
    /// Accepting side: the codes offers are checked against; nil checks none.
    public var passcodes: HostPasscodes?
    /// Accepting side: how guesses are paced, shared by all of a host's connections.
    public var guesses = PasscodeGuesses()
    /// Accepting side: told, with the peer's address and port, of each wrong passcode.
    public var onWrongPasscode: @Sendable (String) -> Void = { _ in }

    /// Options for `identity`, with everything else at its default.
    public init(identity: IdentityKeyPair) {
        self.identity = identity
    }
}

extension ChannelSecurity {
    /// The accepting side's security checking `passcodes` (nil: none), pacing guesses by
    /// `guesses` and telling `onWrong` of each wrong one; clear frames stay as they are.
    public func checking(_ passcodes: HostPasscodes?, guesses: PasscodeGuesses,
                         onWrong: @escaping @Sendable (String) -> Void) -> ChannelSecurity {
        guard case .encrypted(var options) = self else { return self }
        options.passcodes = passcodes
        options.guesses = guesses
        options.onWrongPasscode = onWrong
        return .encrypted(options)
    }

    /// `stream` as the accepting side's frame stream: as it is (`clear`) or behind the channel.
    public func accepting(_ stream: any ByteStream) -> any ByteStream {
        switch self {
        case .clear: stream
        case .encrypted(let options): SecureByteStream(over: stream, role: .responder(allowClear: options.allowClearGuests), options: options)
        }
    }

    /// `stream` as the connecting side's frame stream: as it is (`clear`) or behind the channel.
    public func connecting(_ stream: any ByteStream) -> any ByteStream {
        switch self {
        case .clear: stream
        case .encrypted(let options): SecureByteStream(over: stream, role: .initiator, options: options)
        }
    }
}

/// A `ByteStream` behind protocol 3's channel: `SecureChannel` stepped inline
/// on the reader's task (no task or thread of its own), sends sealed under the
/// lock that orders them.
///
/// Frames sent before the handshake completes wait and go out sealed once it
/// has (a guest's HELLO never leaves in clear, and never before the host's key
/// was judged). A failure closes the transport; the reader's `.closed` carries
/// the failure's sentence.
public final class SecureByteStream: ByteStream {
    private let core: ChannelCore
    private let reader: ChannelReader
    /// The frame stream's plaintext, for one reader: the peer's sealed records opened in
    /// order, then `.closed` (with the failure's sentence when the channel failed).
    public let events: AsyncStream<ByteStreamEvent>

    /// Wraps `inner` (which must not have been read yet) as `role`.
    public init(over inner: any ByteStream, role: SecureChannel.Role, options: SecureChannelOptions) {
        core = ChannelCore(inner: inner, role: role, options: options)
        let reader = ChannelReader(core: core, events: inner.events)
        self.reader = reader
        events = AsyncStream(unfolding: { await reader.next() })
        core.start()
    }

    /// The peer's proved identity key, once the channel is set up (nil in clear).
    public var peer: PlayerPublicKey? { core.state.withLock { $0.channel?.peer } }

    /// Whether the frames are sealed: false until the handshake completes, and
    /// always false for a clear peer.
    public var isPrivate: Bool { core.state.withLock { $0.channel?.isEstablished ?? false } }

    /// Why the channel failed, once it has (nil while it works, and for a stream that simply ended).
    public var failure: ChannelFailure? { core.state.withLock { $0.failure } }

    /// Accepting side: the use whose passcode the peer proved in the handshake, nil for none.
    public var provedPasscode: PasscodeUse? { core.state.withLock { $0.channel?.provedPasscode } }

    /// The transport's peer, e.g. "192.0.2.7:51234".
    public var peerDescription: String { core.inner.peerDescription }
    /// Whether the transport's peer has ended the stream.
    public var peerHasClosed: Bool { core.inner.peerHasClosed }
    /// Sealed bytes the transport has not handed on yet (records are larger than the frames in them).
    public var queuedByteCount: Int { core.inner.queuedByteCount }

    /// Seals `bytes` and queues the record; before the handshake completes they wait
    /// and leave sealed once it has. Never blocks.
    public func send(_ bytes: [UInt8]) {
        core.state.withLock { state in
            // Stepped in place: a copy out of the lock would copy its buffers on each write.
            guard let out = state.channel?.seal(bytes), !out.isEmpty else { return }
            core.inner.send(out)
        }
    }

    /// Closes the transport once what is queued has been written.
    public func close() { core.inner.close() }

    /// Push mode, when the transport can push: each record is opened on the
    /// transport's thread as it arrives and its plaintext handed to `receiver`
    /// (what was opened already and not read goes first).
    public func push(to receiver: @escaping @Sendable (ByteStreamEvent) -> Bool) -> Bool {
        reader.push(to: receiver)
    }

    /// Reading of the transport goes on (push mode).
    public func resumeReading() { core.inner.resumeReading() }

    /// Waits, at most `limit`, until the transport's close has finished.
    public func waitUntilClosed(within limit: Duration) async { await core.inner.waitUntilClosed(within: limit) }
    /// Waits, at most `limit`, until the transport has handed every sealed byte on.
    public func waitUntilSent(within limit: Duration) async { await core.inner.waitUntilSent(within: limit) }
}

/// The channel and the transport it runs over, shared by the stream and its reader.
final class ChannelCore: Sendable {
    struct State {
        var channel: SecureChannel?
        var failure: ChannelFailure?
        /// The passcode offer waiting for its turn or its third message, by its id in `options.guesses`.
        var offer: UInt64?
        /// Its timer.
        var offerTimer: (@Sendable () -> Void)?
    }

    let inner: any ByteStream
    let options: SecureChannelOptions
    let isInitiator: Bool
    let state: Mutex<State>

    init(inner: any ByteStream, role: SecureChannel.Role, options: SecureChannelOptions) {
        self.inner = inner
        self.options = options
        isInitiator = role == .initiator
        var state = State()
        do {
            state.channel = try SecureChannel(role: role, identity: options.identity, rekeyInterval: options.rekeyInterval,
                                              offer: role == .initiator ? options.passcode : nil,
                                              passcodes: role == .initiator ? nil : options.passcodes)
        } catch {
            state.failure = error
        }
        self.state = Mutex(state)
    }

    /// Sends the initiator's first record.
    func start() {
        state.withLock { state in
            for case .send(let bytes) in state.channel?.start() ?? [] { inner.send(bytes) }
        }
    }

    /// Steps the channel with bytes from the transport; sends what it says under the lock, returns the rest.
    func receive(_ bytes: [UInt8]) -> [SecureChannel.Action] {
        state.withLock { state in
            guard let actions = state.channel?.receive(bytes, verify: options.verifyPeer) else { return [] }
            for action in actions {
                switch action {
                case .send(let out): inner.send(out)
                case .fail(let why): state.failure = why
                default: break
                }
            }
            return actions
        }
    }

    /// A passcode offer was read: its answer goes out when its turn comes, or it is refused now.
    func paceOffer() {
        let address = SocketAddress.host(ofPeer: inner.peerDescription)
        let turn = options.guesses.arrive(from: address) { [weak self] in self?.refuseOffer() }
        guard let (id, at) = turn else {
            refuseOffer()
            return
        }
        // The id is kept before the timer can fire, so the answer's release and the judging both find it.
        state.withLock { state in
            state.offer = id
            state.offerTimer = LoopAlarm.after(max(.zero, at - .now)) { [weak self] in self?.releaseOffer() }
        }
    }

    private func releaseOffer() {
        let id = state.withLock { state -> UInt64? in
            for case .send(let bytes) in state.channel?.releaseOffer() ?? [] { inner.send(bytes) }
            return state.offer
        }
        if let id { options.guesses.released(id) }
    }

    private func refuseOffer() {
        let failed = state.withLock { state -> Bool in
            state.offerTimer?()
            guard let actions = state.channel?.refuseOffer(.busy, PasscodeSentences.tooManyGuesses), !actions.isEmpty else { return false }
            for action in actions {
                switch action {
                case .send(let out): inner.send(out)
                case .fail(let why): state.failure = why
                default: break
                }
            }
            if let id = state.offer { options.guesses.remove(id) }
            state.offer = nil
            return true
        }
        if failed { inner.close() }
    }

    /// The offer was judged by the third handshake message.
    func offerJudged(wrong: Bool) {
        let id = state.withLock { state -> UInt64? in
            defer { state.offer = nil }
            return state.offer
        }
        guard let id else { return }
        options.guesses.judged(id, wrong: wrong)
        if wrong { options.onWrongPasscode(inner.peerDescription) }
    }

    /// The transport ended: an offer still waiting gives up its place.
    func ended() {
        let (id, timer) = state.withLock { state in
            defer { state.offer = nil; state.offerTimer = nil }
            return (state.offer, state.offerTimer)
        }
        timer?()
        if let id { options.guesses.remove(id) }
    }

    /// Why the transport ended, as the reader should hear it.
    func closedReason(_ reason: String?) -> String? {
        state.withLock { state in
            if let failure = state.failure { return failure.description }
            guard isInitiator, let channel = state.channel, !channel.isEstablished, !channel.isClear, !channel.hasFailed else { return reason }
            state.failure = .closedDuringHandshake(reason)
            return ChannelFailure.closedDuringHandshake(reason).description
        }
    }
}

/// The single reader's side: pulls the transport's events and steps the
/// channel inline, or (push mode) is handed them by the transport.
final class ChannelReader: @unchecked Sendable {
    private let core: ChannelCore
    // Touched only by the one task that reads `events`, or in push mode by the
    // transport's pushes (one at a time, after the task has stopped reading).
    private var iterator: AsyncStream<ByteStreamEvent>.Iterator
    private var ready: [ByteStreamEvent] = []
    private var ended = false

    init(core: ChannelCore, events: AsyncStream<ByteStreamEvent>) {
        self.core = core
        iterator = events.makeAsyncIterator()
    }

    func next() async -> ByteStreamEvent? {
        while ready.isEmpty {
            guard !ended else { return nil }
            guard let event = await iterator.next() else {
                ended = true
                return nil
            }
            take(event)
        }
        return ready.removeFirst()
    }

    /// One event of the transport: its records opened, or the end (with the failure's sentence, if any).
    private func take(_ event: ByteStreamEvent) {
        switch event {
        case .data(let bytes): step(bytes)
        case .closed(let reason):
            ended = true
            core.ended()
            ready.append(.closed(core.closedReason(reason)))
        }
    }

    /// Push mode: what was opened and not read yet goes to `receiver` first, then every event as it comes.
    func push(to receiver: @escaping @Sendable (ByteStreamEvent) -> Bool) -> Bool {
        while !ready.isEmpty { _ = receiver(ready.removeFirst()) }
        guard !ended else { return true }
        return core.inner.push { [self] event in
            guard !ended else { return true }
            take(event)
            var more = true
            while !ready.isEmpty { more = receiver(ready.removeFirst()) && more }
            return more
        }
    }

    private func step(_ bytes: [UInt8]) {
        var failure: ChannelFailure?
        for action in core.receive(bytes) {
            switch action {
            case .deliver(let plaintext): ready.append(.data(plaintext))
            case .admittedClear: core.options.onClearGuest(core.inner.peerDescription)
            case .fail(let why):
                failure = why
                if why == .passcodeWrong { core.offerJudged(wrong: true) }
            case .passcodeOffered: core.paceOffer()
            case .passcodeProved: core.offerJudged(wrong: false)
            case .send, .established: break
            }
        }
        if let failure {
            core.ended()
            ready.append(.closed(failure.description))
            ended = true
            core.inner.close()
        }
    }
}
