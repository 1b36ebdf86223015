// parlorkit-lan: the library's front door (ParlorKit) on a real LAN, for the
// lab test that finds a game by its listed name through real avahi-daemons.
// Not installed. Both sides seat parlor's easy bot and play tic-tac-toe to its end.
//
//   parlorkit-lan host NAME          lists "NAME's Tic-tac-toe", prints "listed <name>", then "hash <hex>"
//   parlorkit-lan join LISTED-NAME   finds it by that name, joins, prints "hash <hex>"
@preconcurrency import Glibc
import Games
import ParlorKit

setvbuf(stdout, nil, _IOLBF, 0)
let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch (arguments.first, arguments.count) {
    case ("host", 2):
        let table = try await TurnBasedLAN.host(TicTacToe.self, as: arguments[1])
        print("listed \(table.listedName ?? "nothing: \(table.listingProblem ?? "?")")")
        let match = try await table.waitForMatch(playedBy: .bot(.easy), within: .seconds(60))
        _ = await match.finished()
        print("hash \(String(await match.state.stateHash, radix: 16))")
        await match.leave()
    case ("join", 2):
        let match = try await TurnBasedLAN.join(TicTacToe.self, named: arguments[1], as: "Guest", playedBy: .bot(.easy))
        _ = await match.finished()
        print("hash \(String(await match.state.stateHash, radix: 16))")
    default:
        fputs("usage: parlorkit-lan host NAME | join LISTED-NAME\n", stderr)
        exit(64)
    }
} catch {
    fputs("parlorkit-lan: \(error)\n", stderr)
    exit(1)
}
