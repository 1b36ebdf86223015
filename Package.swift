// swift-tools-version:6.0
// parlor: turn-based board games peer-to-peer on a LAN.
//
// The dependency arrows point one way (see docs/ARCHITECTURE.md):
//
//   parlor (thin executable) -> ParlorCLI
//   ParlorCLI -> TerminalUI, Discovery, Bench, Session, Store, Bots -> Match -> Games
//   Bench -> Session, Store, Bots (the benchmarks' measuring, no printing)
//   Bots -> Match (BotParticipant: a bot at a seat)
//   Discovery -> CDNSSD (avahi's dns_sd.h compatibility library: advertising),
//                CAvahiClient (avahi-client: browsing and resolving on one D-Bus connection)
//   Session -> Secure (protocol 3's encrypted channel: Sources/Session/Channel)
//   Secure -> CSodium (libsodium: identity, Noise, CPace)
import PackageDescription

let package = Package(
    name: "parlor",
    // Linux is where parlor runs. Games and Match import no Glibc-only module
    // and need only Swift 6's Synchronization (Mutex, Atomic), so a game's rules
    // can be shared with an Apple-platform client; these are the releases that have it.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .executable(name: "parlor", targets: ["parlor"]),
        // The library a developer depends on (docs/LIBRARY.md): the rules, the
        // match, the LAN session, bots, saved matches, finding games on the LAN
        // and the players' keys.
        .library(name: "Games", targets: ["Games"]),
        .library(name: "Match", targets: ["Match"]),
        .library(name: "Session", targets: ["Session"]),
        .library(name: "Bots", targets: ["Bots"]),
        .library(name: "Store", targets: ["Store"]),
        .library(name: "Discovery", targets: ["Discovery"]),
        // Player keys, fingerprints and known players (protocol 3's identities).
        .library(name: "Secure", targets: ["Secure"]),
        .library(name: "ParlorKit", targets: ["ParlorKit"]),
    ],
    targets: [
        // C library: avahi's Bonjour compatibility layer (Debian libavahi-compat-libdnssd-dev).
        // Header only at build time: Discovery loads libdns_sd with dlopen, so a
        // machine without it still runs parlor (hosting by address works) and
        // gets a clear error from browse and join-by-name.
        .systemLibrary(
            name: "CDNSSD",
            providers: [.apt(["libavahi-compat-libdnssd-dev"])]
        ),
        // C library: avahi-client (Debian libavahi-client-dev): browsing and
        // resolving on one D-Bus connection and one thread. Header only at
        // build time, like CDNSSD: Discovery loads libavahi-client with dlopen
        // (no pkgConfig here, which would make SwiftPM link it).
        .systemLibrary(
            name: "CAvahiClient",
            providers: [.apt(["libavahi-client-dev"])]
        ),
        // libsodium (Debian libsodium-dev, 1.0.18), the one crypto library: X25519, Ed25519,
        // ChaCha20-Poly1305, SHA-2, HMAC (and PBKDF2 over it), ristretto255, random bytes.
        // Only Secure imports it; Session's channel and passcode proofs go through Secure.
        .systemLibrary(name: "CSodium", providers: [.apt(["libsodium-dev"])]),
        // Linux calls that Glibc's module leaves out (epoll, eventfd, accept4); header only.
        .systemLibrary(name: "CLinux"),
        // Pure rules: no I/O.
        .target(name: "Games"),
        // Computer opponents, searching the pure rules, and the participant that
        // seats one in a match. Always optimised: an
        // unoptimised search is some 50x slower, which would make `hard` think
        // for seconds in a debug build and the bot tests run for many minutes.
        // Exclusivity is checked at compile time only: the run-time checks on the
        // solvers' class fields cost more than the search on easy positions.
        .target(name: "Bots", dependencies: ["Match", "Games"], swiftSettings: [.unsafeFlags(["-O", "-enforce-exclusivity=unchecked"])]),
        // The match blob, the match controller and the participant strategy.
        .target(name: "Match", dependencies: ["Games"]),
        // Player identity (Ed25519 keys, fingerprints, known players), the Noise
        // handshake and transport, and CPace passcodes: pure machines over
        // libsodium, built beside the session and not wired to it yet (issue 38).
        .target(name: "Secure", dependencies: ["CSodium"]),
        // Matches kept on disk: atomic writes, damaged files reported and skipped.
        .target(name: "Store", dependencies: ["Match"]),
        // The wire protocol, the authoritative turn holder and the TCP shell;
        .target(name: "Session", dependencies: ["Match", "Games", "Secure", "CLinux"]),
        // DNS-SD advertise and browse; the only importer of CDNSSD and CAvahiClient.
        .target(name: "Discovery", dependencies: ["CDNSSD", "CAvahiClient"]),
        // Rendering and input; the only module that touches termios.
        .target(name: "TerminalUI", dependencies: ["Match", "Games"]),
        // The typed, GameKit-shaped front door: host, join and play a game of the caller's.
        .target(name: "ParlorKit", dependencies: ["Games", "Match", "Bots", "Session", "Secure", "Discovery", "Store"]),
        // The benchmarks' engines: load generators, floors, percentiles and goals,
        // their figures returned as values (ParlorCLI prints them).
        .target(name: "Bench", dependencies: ["Games", "Match", "Bots", "Store", "Session", "Secure"]),
        // Commands, flags, help text and error rendering.
        .target(
            name: "ParlorCLI",
            dependencies: ["Games", "Bots", "Match", "Store", "Session", "Secure", "Discovery", "ParlorKit", "TerminalUI", "Bench"]
        ),
        // A release build links the Swift runtime and Foundation in: loading
        // their twenty shared libraries was most of `parlor games`' start-up
        // (docs/ARCHITECTURE.md, "Why these choices"; `parlor bench startup`).
        // Debug builds, and so the tests, keep the shared libraries.
        .executableTarget(
            name: "parlor", dependencies: ["ParlorCLI"],
            linkerSettings: [
                .unsafeFlags(["-static-stdlib"], .when(platforms: [.linux], configuration: .release)),
                // The modules were compiled against the shared Foundation, whose
                // autolink entries name none of the archives behind static
                // Foundation; name them here.
                .linkedLibrary("CoreFoundation", .when(platforms: [.linux], configuration: .release)),
                .linkedLibrary("_FoundationCollections", .when(platforms: [.linux], configuration: .release)),
                .linkedLibrary("_FoundationCShims", .when(platforms: [.linux], configuration: .release)),
                .linkedLibrary("_FoundationICU", .when(platforms: [.linux], configuration: .release)),
            ]),
        // Builds the Connect Four opening book (scripts/build-connect4-book); not installed.
        .executableTarget(
            name: "connect4-book", dependencies: ["Bots", "Games"], path: "Tools/connect4-book",
            swiftSettings: [.unsafeFlags(["-O"])]),
        // The floor of `parlor bench startup`: a Swift program that prints one line; not installed.
        .executableTarget(name: "parlor-trivial", path: "Tools/parlor-trivial"),
        // The front door on a real LAN, for the lab test (not installed).
        .executableTarget(name: "parlorkit-lan", dependencies: ["ParlorKit", "Games"], path: "Tools/parlorkit-lan"),
        // Fakes shared by every test target.
        .target(
            name: "ParlorTestSupport",
            dependencies: ["Games", "Match", "Session", "Secure", "Discovery", "Bots"],
            path: "Tests/ParlorTestSupport"
        ),
        .testTarget(name: "GamesTests", dependencies: ["Games"]),
        .testTarget(name: "BotsTests", dependencies: ["Bots", "Games"]),
        .testTarget(name: "MatchTests", dependencies: ["Match", "Games", "Bots", "ParlorTestSupport"]),
        .testTarget(name: "StoreTests", dependencies: ["Store", "Match", "Games", "ParlorTestSupport"]),
        .testTarget(name: "SessionTests", dependencies: ["Session", "Secure", "Match", "Games", "Bots", "ParlorTestSupport"]),
        .testTarget(name: "SecureTests", dependencies: ["Secure"]),
        .testTarget(name: "DiscoveryTests", dependencies: ["Discovery", "ParlorTestSupport"]),
        .testTarget(name: "TerminalUITests", dependencies: ["TerminalUI", "Match", "Games", "Bots", "ParlorTestSupport"]),
        .testTarget(name: "BenchTests", dependencies: ["Bench", "Games", "Match", "Store", "Session", "ParlorTestSupport"]),
        .testTarget(name: "ParlorCLITests", dependencies: ["ParlorCLI", "ParlorKit", "Bench", "Games", "Match", "Session", "Secure", "TerminalUI", "ParlorTestSupport"]),
        // Tests that need root, network namespaces and real avahi-daemons (scripts/lab).
        .testTarget(name: "ParlorKitTests", dependencies: ["ParlorKit", "Games", "Match", "Session", "Secure", "Discovery", "Store", "ParlorTestSupport"]),
        .testTarget(name: "LabTests", dependencies: ["Discovery", "ParlorTestSupport"]),
    ]
)
