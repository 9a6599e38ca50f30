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

    /// Fakes with users `alice` and `slowpoke`, four years of weeks each, and a chart for alice.
    static func start() async throws -> BotHarness {
        let telegram = FakeTelegram()
        let lastFM = FakeLastFM()
        let end = Int(LastFMWeek.start(of: now).timeIntervalSince1970)
        let ranges = (1...(52 * 4)).reversed().map { (from: end - $0 * 604_800, to: end - ($0 - 1) * 604_800) }
        await lastFM.addUser("alice", ranges: ranges)
        await lastFM.addUser("slowpoke", ranges: ranges)
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
    }

    /// The engine over the Last.fm fake, with the production adaptors.
    func engine() -> ThrowbackEngine {
        let lastFM = HTTPLastFMClient(transport: URLSessionTransport(), baseURL: lastFMURL, apiKey: "key", logger: logs.logger("lastfm"))
            .rateLimited(requestsPerSecond: 50)
            .retrying(clock: ImmediateClock())
            .cached(now: { Self.now })
        return ThrowbackEngine(lastFM: lastFM, now: { Self.now })
    }

    /// The text the bot should send for a throwback.
    func expectedReply(_ user: String, years: Int) async throws -> String {
        ChartFormatter.telegram.format(try await engine().throwback(user: user, yearsAgo: years))
    }

    /// The bot service, with `clock` driving retries, backoff and the shutdown grace.
    func bot(
        clock: any Clock<Duration>,
        poller: LongPoller.Configuration = .init(timeout: 30),
        token: String? = nil
    ) async -> BotService {
        let http = HTTPTelegramClient(
            transport: URLSessionTransport(), baseURL: telegramURL, token: token ?? telegram.token, logger: logs.logger("telegram")
        )
        let replies = http.throttled(clock: clock).retrying(clock: clock, logger: logs.logger("telegram")).followingMigrations { _, _ in }
        return BotService(
            telegram: replies, pollingClient: http, engine: engine(),
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
}
