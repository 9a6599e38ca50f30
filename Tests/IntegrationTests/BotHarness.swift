import Clocks
import Covers
import Foundation
import Logging
import Networking
import ServiceLifecycle
import Synchronization
import Telegram
import TestSupport
import Throwback
import WeeklyCharts

/// A bot wired like production, against the Telegram and Last.fm fakes on loopback.
struct BotHarness {
    static let now = Date(timeIntervalSince1970: 1_795_000_000) // Nov 2026
    static let target = LastFMWeek.start(of: WeekFinder.date(yearsBefore: now, years: 3))
    static let lastFMKey = "0f3a9c5e8b7d4a2f1e6c9b8a7d5e4f3a"

    let telegram: FakeTelegram
    let lastFM: FakeLastFM
    let telegramURL: URL
    let lastFMURL: URL
    let logs = LogCapture()
    /// The transport production uses, shared by both clients as in production.
    let transport = CurlTransport()
    /// A fresh SQLite file per harness; restarts reopen the same one.
    let databasePath = FileManager.default.temporaryDirectory.appendingPathComponent("vinylogue-\(UUID().uuidString).sqlite").path

    /// Fakes with users `alice` and `slowpoke`, four years of weeks each, and a chart for alice.
    static func start() async throws -> BotHarness {
        let telegram = FakeTelegram()
        let lastFM = FakeLastFM()
        let end = Int(LastFMWeek.start(of: now).timeIntervalSince1970)
        let ranges = (1...(52 * 4)).reversed().map { (from: end - $0 * 604_800, to: end - ($0 - 1) * 604_800) }
        await lastFM.addUser("alice", ranges: ranges)
        await lastFM.addUser("slowpoke", ranges: ranges)
        await lastFM.addUser("bob", ranges: ranges)
        await lastFM.setFriends(of: "alice", ["bob", "carol", "Dave"])
        let from = Int(target.timeIntervalSince1970)
        await lastFM.setAlbumChart(user: "alice", from: from, to: from + 604_800, albums: [
            ("Radiohead", "In Rainbows", 12), ("Simon & Garfunkel", "Bookends", 3), ("Low", "<Secret> Name", 1),
        ])
        return BotHarness(
            telegram: telegram, lastFM: lastFM,
            telegramURL: try await telegram.start(), lastFMURL: try await lastFM.start()
        )
    }

    /// Users `slow1` … `slow<count>`, four years of weeks each, whose every request is held
    /// until the returned gates open: one request each, since requests in flight for the same
    /// user are shared, so that `count` chats can each be blocked on a request of their own.
    func slowUsers(_ count: Int) async -> [Gate] {
        let end = Int(LastFMWeek.start(of: Self.now).timeIntervalSince1970)
        let ranges = (1...(52 * 4)).reversed().map { (from: end - $0 * 604_800, to: end - ($0 - 1) * 604_800) }
        var gates: [Gate] = []
        for index in 1...count {
            await lastFM.addUser("slow\(index)", ranges: ranges)
            gates.append(await lastFM.hold(user: "slow\(index)"))
        }
        return gates
    }

    func stop() async {
        await telegram.stop()
        await lastFM.stop()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: databasePath + suffix) }
        try? FileManager.default.removeItem(at: configuration().coverCacheDirectory)
    }

    /// The configuration a person would write for these fakes.
    func configuration(admins: [Int64] = [], rateLimits: RateLimitGuard.Limits = .init()) -> BotConfiguration {
        BotConfiguration(
            telegramToken: Secret(telegram.token), telegramAPIURL: telegramURL, lastFMAPIKey: Secret(Self.lastFMKey), lastFMAPIURL: lastFMURL,
            databasePath: databasePath, adminUserIDs: admins, logLevel: .trace, rateLimits: rateLimits,
            // No test leaves loopback: a ListenBrainz album's cover, say, is asked of the Last.fm
            // fake, which has none, rather than of the real Cover Art Archive.
            listenBrainzAPIURL: lastFMURL, libreFMAPIURL: lastFMURL, coverArtArchiveURL: lastFMURL
        )
    }

    /// The engine over the Last.fm fake, with the production adaptors and a cache of its own.
    func engine() throws -> ThrowbackEngine {
        let assembly = BotAssembly(configuration: configuration(), lastFMTransport: transport, lastFMKey: Secret(Self.lastFMKey))
        return ThrowbackEngine(lastFM: assembly.lastFM(breaker: CircuitBreaker(), store: try BotStore.inMemory()), now: { Self.now })
    }

    /// The text the bot should send for a throwback.
    func expectedReply(_ user: String, years: Int) async throws -> String {
        ChartFormatter.telegram.format(try await engine().throwback(user: user, yearsAgo: years))
    }

    /// The bot and its weekly post as `vinylogue-bot run` builds them, with `clock` driving
    /// flood limits (the fake Telegram measures them on the same clock), retries, backoff
    /// and the shutdown grace, on this harness's database. `breakerClock` drives the Last.fm
    /// circuit breaker; `chatActionClock`, when a slow answer shows "typing…"; `telegramTransport`,
    /// if given, stands between the bot and the fake; `webhook`, if given, is `TELEGRAM_WEBHOOK_URL`.
    func services(
        clock: any Clock<Duration>,
        poller: LongPoller.Configuration = .init(timeout: 30),
        token: String? = nil,
        admins: [Int64] = [],
        rateLimits: RateLimitGuard.Limits = .init(),
        breakerClock: any Clock<Duration> = ContinuousClock(),
        delivery: OutboxDeliverer.Settings = .init(),
        now: (@Sendable () -> Date)? = nil,
        weeklyMessageLength: Int = 4096,
        metrics: BotMetrics = .none,
        collageRenderer: any CollageRendering = CollageRenderer(),
        telegramURL: URL? = nil,
        inlineCollageChat: Int64? = nil,
        chatActionClock: any Clock<Duration> = ContinuousClock(),
        telegramTransport: (any HTTPTransport)? = nil,
        webhook: URL? = nil,
        lastFMRequestsPerSecond: Int = 50,
        prefetchClock: any Clock<Duration> = ContinuousClock()
    ) async throws -> BotAssembly.Services {
        await telegram.useClock(clock)
        let settings = BotService.Settings(poller: poller, shutdownGrace: .seconds(4))
        var configuration = configuration(admins: admins, rateLimits: rateLimits)
        if let telegramURL { configuration.telegramAPIURL = telegramURL }
        configuration.inlineCollageChatID = inlineCollageChat
        configuration.webhookURL = webhook
        let assembly = BotAssembly(
            configuration: configuration, lastFMTransport: transport,
            lastFMKey: Secret(Self.lastFMKey),
            options: .init(
                clock: clock, breakerClock: breakerClock, now: now ?? { Self.now }, makeLogger: { [logs] in logs.logger($0) },
                lastFMRequestsPerSecond: lastFMRequestsPerSecond, bot: settings, delivery: delivery, weeklyMessageLength: weeklyMessageLength, metrics: metrics,
                collageRenderer: collageRenderer, chatActionClock: chatActionClock, prefetchClock: prefetchClock
            )
        )
        return assembly.services(
            telegramTransport: telegramTransport ?? transport, token: Secret(token ?? telegram.token), store: try BotStore(path: databasePath)
        )
    }

    /// The bot service alone, for tests about commands.
    func bot(
        clock: any Clock<Duration>,
        poller: LongPoller.Configuration = .init(timeout: 30),
        token: String? = nil,
        admins: [Int64] = [],
        rateLimits: RateLimitGuard.Limits = .init(),
        breakerClock: any Clock<Duration> = ContinuousClock(),
        delivery: OutboxDeliverer.Settings = .init()
    ) async throws -> BotService {
        try await services(
            clock: clock, poller: poller, token: token, admins: admins, rateLimits: rateLimits, breakerClock: breakerClock, delivery: delivery
        ).bot
    }
}

/// A service group running in a task, as `vinylogue-bot run` runs it, minus signal handling.
struct RunningBot {
    let group: ServiceGroup
    let task: Task<Void, any Error>
    /// Opens when the run has ended.
    let ended = Gate()

    init(_ service: BotService) {
        self.init(services: [service])
    }

    init(services: [any Service]) {
        var logger = Logger(label: "group")
        logger.logLevel = .critical
        let group = ServiceGroup(services: services, logger: logger)
        self.group = group
        task = Task { [ended] in
            defer { Task { await ended.open() } }
            try await group.run()
        }
    }

    /// Triggers graceful shutdown and moves `clock` on, a second at a time, until the run
    /// ends: waits in progress (backoff, the shutdown grace) pass as they would in real time.
    func shutDown(advancing clock: TestClock<Duration>) async throws {
        await group.triggerGracefulShutdown()
        while await !ended.isOpen {
            await clock.waitForSleeper(limit: .milliseconds(100))
            await clock.advance(by: .seconds(1))
        }
        try await task.value
    }

    /// Triggers graceful shutdown, as SIGTERM would, and waits for the run to end.
    func shutDown() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }

    /// Ends the run abruptly, by cancelling it: what the bot does when its task is cancelled
    /// (a crash itself is shown with SIGKILL of a real process, in `CrashTests`).
    func cancel() async {
        task.cancel()
        _ = await task.result
    }
}

/// A wall clock for tests: a start date moved on by a `TestClock`, or set by hand.
final class TestDate: Sendable {
    private let date: Mutex<Date>
    private let elapsed: (@Sendable () -> Duration)?
    private let start: Date

    init(_ start: Date, following clock: TestClock<Duration>? = nil) {
        self.start = start
        date = Mutex(start)
        elapsed = clock.map { ElapsedClock($0).elapsed }
    }

    var now: Date {
        elapsed.map { start.addingTimeInterval($0().seconds) } ?? date.withLock { $0 }
    }

    func set(_ unix: Int) {
        date.withLock { $0 = Date(timeIntervalSince1970: TimeInterval(unix)) }
    }
}
