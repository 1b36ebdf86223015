import Secure
import TerminalUI

/// Runs `parlor id`: the player's key fingerprint (making the key on first use).
func runId(_ options: IdOptions) async throws -> ExitCode {
    let key = try PlayerKey.current()
    let fingerprint = key.fingerprint
    if options.json {
        Console.write(JSONValue.object([
            ("fingerprint", JSONValue(fingerprint.description)), ("short", JSONValue(fingerprint.short)),
            ("publicKey", JSONValue(key.publicKey.hex)), ("file", JSONValue(PlayerKey.path)),
        ]).encoded + "\n")
        return .success
    }
    Console.write("""
        Your player fingerprint:
          \(fingerprint)
        Other players see it when you play them; compare it aloud or on both screens.
        Key file: \(PlayerKey.path)

        """)
    return .success
}

/// Runs `parlor forget-player`: forgets the remembered key, saying whose.
func runForgetPlayer(_ options: ForgetPlayerOptions) async throws -> ExitCode {
    let forgotten = try KnownPeople.forget(options.player)
    guard !forgotten.isEmpty else {
        Console.writeError("parlor: no known player called '\(Text.escapingUnprintable(options.player))' (in \(KnownPeople.path))\n")
        return .failure
    }
    for player in forgotten {
        Console.write("Forgot \(Text.escapingUnprintable(player.name))'s key \(player.fingerprint) (known since \(player.firstSeen)).\n")
    }
    return .success
}
