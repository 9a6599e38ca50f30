import Clocks
import Foundation
import LastFM
import Logging
import Networking
import ServiceLifecycle
import Telegram
import TestSupport
import Throwback

/// A bot wired like production, against the Telegram and Last.fm fakes on loopback.
struct BotHarness {
    static let now = Date(timeIntervalSince1970: 1_795_000_000) // Nov 2026
    static let target = LastFMWeek.start(of: WeekFinder.date(yearsBefore: now, years: 3))

    let telegram: FakeTelegram
    let lastFM: FakeLastFM
    let telegramURL: URL
    let lastFMURL: URL
    let logs = LogCapture()
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

    func stop() async {
        await telegram.stop()
        await lastFM.stop()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: databasePath + suffix) }
    }

    /// The Last.fm client chain over the fake, as production builds it.
    func lastFMClient(breaker: CircuitBreaker, cache: any LastFMCacheStore = InMemoryLastFMCache()) -> any LastFMClient {
        HTTPLastFMClient(transport: URLSessionTransport(), baseURL: lastFMURL, apiKey: "key", logger: logs.logger("lastfm"))
            .rateLimited(requestsPerSecond: 50)
            .retrying(clock: ImmediateClock())
            .circuitBroken(by: breaker)
            .cached(in: cache, now: { Self.now })
    }

    /// The engine over the Last.fm fake, with the production adaptors.
    func engine() -> ThrowbackEngine {
        ThrowbackEngine(lastFM: lastFMClient(breaker: CircuitBreaker()), now: { Self.now })
    }

    /// The text the bot should send for a throwback.
    func expectedReply(_ user: String, years: Int) async throws -> String {
        ChartFormatter.telegram.format(try await engine().throwback(user: user, yearsAgo: years))
    }

    /// The bot service, with `clock` driving retries, backoff and the shutdown grace, on this
    /// harness's database. `breakerClock` drives the Last.fm circuit breaker.
    func bot(
        clock: any Clock<Duration>,
        poller: LongPoller.Configuration = .init(timeout: 30),
        token: String? = nil,
        admins: [Int64] = [],
        rateLimits: RateLimitGuard.Limits = .init(),
        breakerClock: any Clock<Duration> = ContinuousClock()
    ) async throws -> BotService {
        let store = try BotStore(path: databasePath)
        let http = HTTPTelegramClient(
            transport: URLSessionTransport(), baseURL: telegramURL, token: token ?? telegram.token, logger: logs.logger("telegram")
        )
        let replies = http.throttled(clock: clock).retrying(clock: clock, logger: logs.logger("telegram"))
            .followingMigrations { from, to in try? await store.migrateChat(from: from, to: to) }
        let breaker = CircuitBreaker(failureThreshold: 3, cooldown: .seconds(60), clock: breakerClock)
        let lastFM = lastFMClient(breaker: breaker, cache: SQLiteLastFMCache(store: store))
        let commands = BotCommands(CommandSet.Dependencies(
            engine: ThrowbackEngine(lastFM: lastFM, now: { Self.now }), lastFM: lastFM, store: store,
            rateLimit: RateLimitGuard(limits: rateLimits), breaker: breaker,
            admin: AdminGuard(globalAdmins: admins, telegram: replies),
            validUser: ValidLastFMUserGuard(lastFM: lastFM)
        ))
        return BotService(
            telegram: replies, pollingClient: http, commands: commands, store: store, journal: UpdateJournal(store: store),
            settings: .init(poller: poller, shutdownGrace: .seconds(5)), clock: clock, logger: logs.logger("bot")
        )
    }
}

/// A service group running in a task, as `vinylogue-bot run` runs it, minus signal handling.
struct RunningBot {
    let group: ServiceGroup
    let task: Task<Void, any Error>

    init(_ service: BotService) {
        var logger = Logger(label: "group")
        logger.logLevel = .critical
        let group = ServiceGroup(services: [service], logger: logger)
        self.group = group
        task = Task { try await group.run() }
    }

    /// Triggers graceful shutdown, as SIGTERM would, and waits for the run to end.
    func shutDown() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }

    /// Ends the run abruptly, the way a crash or `kill -9` would leave things: nothing more
    /// is sent or recorded after this point.
    func kill() async {
        task.cancel()
        _ = await task.result
    }
}
