// Target `blob`: MatchBlob.decode, the match blob decoder. Every TURN, QUIT,
// STATE, WELCOME and GOODBYE from a peer carries one, and every saved match.
//
// Invariants: decoding never traps; a blob that decodes re-encodes to exactly
// the same bytes (so the hash the peers compare is the hash of what was sent)
// and its stored hash is the state's hash.
import Games
import Match

func fuzzOne(_ bytes: [UInt8]) {
    _ = fuzzGamesRegistered
    check(bytes)
    // Most mutations break the trailing hash; repaired, they reach the checks
    // behind it (history replay, outcomes, sequence).
    if let repaired = blobWithRepairedHash(bytes), repaired != bytes { check(repaired) }
}

private func check(_ bytes: [UInt8]) {
    let state: MatchState
    do { state = try MatchBlob.decode(bytes) } catch {
        _ = error.description  // every error has a sentence, and building it must not trap
        return
    }
    let again = MatchBlob.encode(state)
    fuzzCheck(again == bytes, "a decoded blob re-encodes differently:\n  in  \(bytes.hexString)\n  out \(again.hexString)")
    fuzzCheck(bytes.suffix(8).reduce(0, { $0 << 8 | UInt64($1) }) == state.stateHash, "stored hash is not the state hash")
    fuzzCheck(state.moves.count == state.game.moveCount, "moves and game disagree")
    if !state.isEnded { fuzzCheck(state.activeSeat != nil, "a match that goes on has nobody to move") }
}

func fuzzSeeds() -> [(String, [UInt8])] {
    sampleMatches().map { ($0.name, MatchBlob.encode($0.state)) }
}
