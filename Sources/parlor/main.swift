// The executable stays thin: everything is in ParlorCLI, so tests can drive it.
import ParlorCLI

// Help, the version, usage errors and `parlor games` finish (and exit) in
// `start()`, before any task starts: a call to an async function here would
// first hop to the cooperative pool and start its threads.
let pending = Parlor.start()
await Parlor.main(pending)
