// swift-tools-version: 6.2
// libFuzzer harnesses for everything the bot reads from outside: chat text, Last.fm,
// ListenBrainz and Telegram responses, callback data, and the names that end up in formatted replies.
// A package of its own, so that `swift test` of the main package never builds them.
// Build and run with `Fuzz/run`; see Fuzz/README.md.
import PackageDescription

let harnesses = ["FuzzCommands", "FuzzLastFM", "FuzzListenBrainz", "FuzzTelegram", "FuzzJSON", "FuzzFormatter", "FuzzCallbackData", "FuzzInline"]

// The bot's library products the harnesses use.
let bot: [Target.Dependency] = [
    .product(name: "Networking", package: "vinylogue-bot"),
    .product(name: "Telegram", package: "vinylogue-bot"),
    .product(name: "LastFM", package: "vinylogue-bot"),
    .product(name: "ListenBrainz", package: "vinylogue-bot"),
    .product(name: "WeeklyCharts", package: "vinylogue-bot"),
    .product(name: "Throwback", package: "vinylogue-bot"),
]

let package = Package(
    name: "vinylogue-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "vinylogue-bot", path: ".."),
        // The same version the main package pins; used only to silence logging while fuzzing.
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
    ],
    targets: [
        // What the harnesses share: the blocking bridge, the byte reader, the canned transport,
        // and the invariant checks.
        .target(name: "FuzzSupport", dependencies: bot + ["FuzzDriver", .product(name: "Logging", package: "swift-log")]),
        // libFuzzer's driver, started from each harness's entry point (see FuzzDriver.h).
        .target(name: "FuzzDriver"),
    ] + harnesses.map { name in
        .executableTarget(name: name, dependencies: bot + ["FuzzSupport"])
    },
    swiftLanguageModes: [.v6]
)
