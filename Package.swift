// swift-tools-version: 6.2
import PackageDescription

/// How the release bot is linked on Linux, for a smaller resident set (see
/// docs/performance.md): the Swift runtime and Foundation linked in statically, so only the code
/// the bot uses is loaded, with no symbol lookups between them at start; relative relocations
/// packed (RELR, by lld), which keeps the binary position-independent without a 2.6 MB
/// relocation table to read at start; and no dynamic symbol table for the bot's own symbols,
/// which nothing looks up.
let releaseLinkerFlags = [
    "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic",
]

/// Async functions that are not isolated to an actor run on their caller's executor rather
/// than hopping to the generic one at every call (SE-0461): on the bot's warm path each hop
/// was a lookup of the task's preferred executor under a lock, about 4% of its CPU.
let swiftSettings: [SwiftSetting] = [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]

/// postgres-nio (with swift-nio-ssl's own BoringSSL) adds about 200 s of CPU to a first debug build,
/// so it is built only when the `PostgreSQL` trait is on (`swift build --traits PostgreSQL`):
/// the Dockerfile, the compose file and `scripts/test` turn it on; the SQLite build stays quick.
let postgreSQL: Set<String> = ["PostgreSQL"]

let package = Package(
    name: "vinylogue-bot",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "vinylogue-bot", targets: ["vinylogue-bot"]),
        .library(name: "Networking", targets: ["Networking"]),
        .library(name: "WeeklyCharts", targets: ["WeeklyCharts"]),
        .library(name: "LastFM", targets: ["LastFM"]),
        .library(name: "ListenBrainz", targets: ["ListenBrainz"]),
        .library(name: "LibreFM", targets: ["LibreFM"]),
        .library(name: "Telegram", targets: ["Telegram"]),
        .library(name: "Throwback", targets: ["Throwback"]),
        .library(name: "Covers", targets: ["Covers"]),
    ],
    traits: [
        .trait(name: "PostgreSQL", description: "State in PostgreSQL with DATABASE_URL (postgres-nio), for replicas"),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-configuration", exact: "1.4.0"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-async-algorithms", exact: "1.1.4"),
        .package(url: "https://github.com/pointfreeco/swift-clocks", exact: "1.1.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/apple/swift-collections", exact: "1.6.0"),
        // Already built for Hummingbird's dependencies; the webhook's secret is an HMAC of the token.
        .package(url: "https://github.com/apple/swift-crypto", exact: "4.5.2"),
        .package(url: "https://github.com/apple/swift-metrics", exact: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", exact: "2.4.1"),
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
    ],
    targets: [
        // Shared plumbing for both API clients: the HTTP transport port, backoff, token buckets, redaction.
        .target(
            name: "Networking",
            dependencies: [
                "CCurl", "CEventPoll", .product(name: "Logging", package: "swift-log"), .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        // libcurl (Debian's libcurl4-openssl-dev), called directly by CurlTransport.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // Linux's epoll, for the curl thread's wait (`SocketEvents`).
        .systemLibrary(name: "CEventPoll"),
        // The weekly charts every listening source answers with, on Last.fm's week grid.
        .target(name: "WeeklyCharts", swiftSettings: swiftSettings),
        // Each listening source is a target of its own, answering in `WeeklyCharts`.
        .target(
            name: "LastFM",
            dependencies: ["Networking", "WeeklyCharts", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        // ListenBrainz's listens API; weeks are built from raw listens.
        .target(
            name: "ListenBrainz",
            dependencies: ["Networking", "WeeklyCharts", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        // Libre.fm speaks Last.fm's protocol, without weekly charts: weeks are built from scrobbles.
        .target(
            name: "LibreFM",
            dependencies: ["LastFM", "Networking", "WeeklyCharts"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Telegram",
            dependencies: ["Networking", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Throwback",
            dependencies: [
                "CMalloc",
                "WeeklyCharts",
                "LastFM",
                "ListenBrainz",
                "LibreFM",
                "Covers",
                "Telegram",
                "Networking",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                "CSQLiteSettings",
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "Crypto", package: "swift-crypto"),
                "PostgresStore",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: postgreSQL)),
            ],
            // The catalogs of every language the bot speaks, shipped next to the binary
            // (`vinylogue-bot_Throwback.resources`).
            resources: [.copy("Catalogs")],
            swiftSettings: swiftSettings
        ),
        // PostgreSQL, for state shared by replicas: `DATABASE_URL`, TLS and opening a connection.
        .target(
            name: "PostgresStore",
            dependencies: [
                "Networking",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: postgreSQL)),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Process-wide SQLite settings, which only sqlite3_config (variadic) makes.
        .systemLibrary(name: "CSQLiteSettings"),
        // Health and metrics over HTTP, for operators.
        .target(
            name: "Operations",
            dependencies: [
                "Throwback",
                "Networking",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "vinylogue-bot",
            dependencies: [
                "CMalloc",
                "Covers",
                "Operations",
                .product(name: "Prometheus", package: "swift-prometheus"),
                "Throwback",
                "LastFM",
                "ListenBrainz",
                "Telegram",
                "Networking",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Logging", package: "swift-log"),
            ],
            linkerSettings: [.unsafeFlags(releaseLinkerFlags, .when(platforms: [.linux], configuration: .release))]
        ),
        // libgd's headers (Debian's libgd-dev): decodes covers and encodes the collage JPEG.
        // Not linked: `Covers` opens libgd.so.3 when it first draws (see `LibGD`).
        .systemLibrary(
            name: "CGD",
            providers: [.apt(["libgd-dev"])]
        ),
        // The album-cover collage renderer: image checks, libgd decoding, the grid, placeholders.
        .target(name: "Covers", dependencies: ["CGD", "CMalloc"]),
        // glibc's malloc_trim, which Swift's Glibc module leaves out.
        .systemLibrary(name: "CMalloc"),
        // HTTP fakes of Last.fm and Telegram on 127.0.0.1, shared by the test targets.
        .target(
            name: "TestSupport",
            dependencies: [
                "Networking",
                "Covers",
                "Telegram",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                "PostgresStore", .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: postgreSQL)),
            ],
            path: "Tests/TestSupport"
        ),
        .target(name: "TestLogging", dependencies: ["TestSupport", .product(name: "Logging", package: "swift-log")], path: "Tests/TestLogging"),
        // A load benchmark of the release binary against those fakes (not a test):
        // `swift run -c release vinylogue-load throwbacks --compare <git-ref>` from the repository root.
        .executableTarget(
            name: "vinylogue-load",
            dependencies: [
                "TestSupport", "Throwback", "WeeklyCharts", "LastFM", "Telegram", "Networking",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "NetworkingTests", dependencies: [
            "TestLogging",
            "Networking", "TestSupport", .product(name: "Clocks", package: "swift-clocks"),
        ]),
        .testTarget(name: "LastFMTests", dependencies: [
            "TestLogging",
            "LastFM", "WeeklyCharts", "TestSupport", .product(name: "Clocks", package: "swift-clocks"),
        ]),
        .testTarget(name: "ListenBrainzTests", dependencies: [
            "TestLogging",
            "ListenBrainz", "WeeklyCharts", "Networking", "TestSupport", .product(name: "Clocks", package: "swift-clocks"),
        ]),
        .testTarget(name: "ThrowbackTests", dependencies: [
            "TestLogging",
            "Throwback", "WeeklyCharts", "LastFM", "ListenBrainz", "Telegram", "Networking", "Covers", "TestSupport", .product(name: "Clocks", package: "swift-clocks"),
            .product(name: "Configuration", package: "swift-configuration"),
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "PostgresStoreTests", dependencies: [
            "TestLogging", "PostgresStore", "Networking", "TestSupport", .product(name: "Logging", package: "swift-log"),
            .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: postgreSQL)),
        ]),
        .testTarget(name: "TelegramTests", dependencies: [
            "TestLogging",
            "Telegram", "TestSupport", .product(name: "Clocks", package: "swift-clocks"),
        ]),
        // The tests draw their own test images with libgd, so they link it.
        .testTarget(name: "CoversTests", dependencies: ["Covers", "CGD"], linkerSettings: [.linkedLibrary("gd")]),
        .testTarget(name: "IntegrationTests", dependencies: [
            "TestLogging", "Covers",
            "Operations", "Throwback", "WeeklyCharts", "LastFM", "ListenBrainz", "Telegram", "Networking", "TestSupport",
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"), .product(name: "Clocks", package: "swift-clocks"),
            .product(name: "Prometheus", package: "swift-prometheus"), .product(name: "GRDB", package: "GRDB.swift"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
