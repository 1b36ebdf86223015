// swift-tools-version:6.0
// Nim on parlor: a game parlor does not ship, played offline against a bot,
// on the LAN between two processes, saved and replayed (docs/LIBRARY.md).
import PackageDescription

let package = Package(
    name: "nim",
    platforms: [.macOS(.v15)],
    // By path: parlor's Bots target uses unsafeFlags, which SwiftPM accepts
    // only from a dependency resolved by path.
    dependencies: [.package(name: "parlor", path: "../..")],
    targets: [
        // The rules alone: no I/O, shared by the executable and the tests.
        .target(name: "NimRules", dependencies: [.product(name: "Games", package: "parlor")]),
        .executableTarget(name: "nim", dependencies: [
            "NimRules",
            .product(name: "Games", package: "parlor"),
            .product(name: "Match", package: "parlor"),
            .product(name: "Bots", package: "parlor"),
            .product(name: "Session", package: "parlor"),
            .product(name: "Secure", package: "parlor"),
            .product(name: "Store", package: "parlor"),
            .product(name: "ParlorKit", package: "parlor"),
        ]),
        // The rules, and the `nim` executable run as a user runs it (offline, two processes on the LAN, replay).
        // Random heaps over loopback and through the store, with the library alone.
        .testTarget(name: "NimTests", dependencies: [
            "NimRules", "nim",
            .product(name: "Games", package: "parlor"),
            .product(name: "Match", package: "parlor"),
            .product(name: "Session", package: "parlor"),
            .product(name: "Store", package: "parlor"),
            .product(name: "Bots", package: "parlor"),
        ]),
    ]
)
