import Foundation
import Match
import Secure
import Store

/// Where this player's key and saved matches live: `$NIM_HOME`, else
/// `~/.nim`, created readable by this user only (0700).
struct NimHome {
    let path: String
    var store: MatchStore { MatchStore(directory: path + "/matches") }

    init(environment: [String: String]) throws {
        path = environment["NIM_HOME"] ?? NSHomeDirectory() + "/.nim"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
    }

    /// This player's key, made on first use and kept in `key` (0600; IdentityFile refuses a looser file).
    func playerKey() throws -> IdentityKeyPair {
        do {
            return try IdentityFile.read(from: path + "/key")
        } catch .notFound {
            let key = try IdentityKeyPair.generate()
            try IdentityFile.write(key, to: path + "/key")
            return key
        }
    }

    /// Saves `final` for `nim replay`, and says how to replay it.
    func save(_ final: MatchState, role: StoredMatch.Role, seat: Int) throws {
        try store.save(StoredMatch(state: final, role: role, localSeat: seat, lastActivity: wallClockMilliseconds()))
        saidSaved(final)
    }

    /// Says how to replay `final`, which is saved.
    func saidSaved(_ final: MatchState) {
        print("Saved; replay it with: nim replay \(final.matchID.short)")
    }
}

/// `nim replay FILE|ID`: every position of a saved match, then its winner (or winners).
func replay(_ fileOrID: String, home: NimHome) throws {
    let state = fileOrID.hasSuffix(".match") ? try home.store.load(path: fileOrID).state : try home.store.find(fileOrID)[0].state
    print("Start: heaps \(heaps(state.replayPositions[0]))")
    for (played, position) in zip(state.moves, state.replayPositions.dropFirst()) {
        let name = state.seats[played.seat].name
        print("\(name) \(took(played.move)): heaps \(heaps(position))")
    }
    print(endLine(state))
}
