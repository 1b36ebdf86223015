import Games

extension MatchState {
    /// The match's positions, one per step of its history: before any move,
    /// after each move, and last the state as saved (with its outcomes, which
    /// a quit or a time expiry decide without a move).
    ///
    /// The moves are replayed through the rules; a saved state was validated
    /// when it was decoded, so they all apply. Should one not, the positions
    /// stop before it and the saved state still comes last.
    public var replayPositions: [MatchState] {
        guard let type = GameCatalog.game(id: gameID) else { return [self] }
        // The start as the host made it: a game with chance from the match's seed.
        var position = MatchState(matchID: matchID, gameType: type, seats: seats, seed: seed ?? 0)
        var positions = [position]
        for played in moves.dropLast() {
            guard let next = try? position.applying(.move(played.move, by: played.seat, message: played.message), now: 0) else { break }
            position = next
            positions.append(position)
        }
        if !moves.isEmpty || isEnded { positions.append(self) }
        return positions
    }

    /// How each move is written, in the game's notation (what a person types in plain mode).
    public var moveNotations: [String] {
        guard var game = GameCatalog.newGame(id: gameID, seats: seats.count, seed: seed ?? 0) else { return [] }
        var texts: [String] = []
        for played in moves {
            texts.append(game.notation(for: played.move))
            try? game.apply(played.move)
        }
        return texts
    }
}
