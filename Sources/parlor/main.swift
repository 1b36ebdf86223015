// The executable stays thin: everything is in ParlorCLI, so tests can drive it.
import ParlorCLI

await Parlor.main()
