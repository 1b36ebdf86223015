import Match

extension RemoteGuest {
    /// Whether the guest reads a move's message: its WELCOME chose protocol 4
    /// (docs/PROTOCOL.md section 13), which a host chooses for a two-seat match only.
    public var readsTurnMessages: Bool { protocolVersion >= FrameFormat.messagesVersion }
}
