import Covers
import Foundation
import LastFM
import ListenBrainz
import Logging
import Networking
import ServiceLifecycle
import Telegram

/// The one wiring of the bot: from a configuration and two transports to the client
/// chains, the commands with their guards, and the services. The executable and the
/// integration tests both build the bot here, so the tests exercise what runs.
public struct BotAssembly: Sendable {
    /// What tests swap: time, and a few limits that are about real time.
    public struct Options: Sendable {
        /// Drives waits: flood limits, retries, backoff, the shutdown grace, rate limits.
        public var clock: any Clock<Duration>
        /// Drives the Last.fm circuit breaker's cooldown.
        public var breakerClock: any Clock<Duration>
        /// The wall-clock date, for "N years ago" and cache expiry.
        public var now: @Sendable () -> Date
        /// Makes the logger for a subsystem label.
        public var makeLogger: @Sendable (String) -> Logger
        public var lastFMRequestsPerSecond: Int
        public var lastFMRetry: RetryPolicy
        /// ListenBrainz requests in any 10 seconds, before its own headers say otherwise.
        public var listenBrainzRequestsPer10Seconds: Int
        /// Libre.fm requests in any second.
        public var libreFMRequestsPerSecond: Int
        public var telegramRetry: RetryPolicy
        public var bot: BotService.Settings?
        public var delivery: OutboxDeliverer.Settings
        /// The longest message of a weekly post, in UTF-16 units: Telegram's 4096.
        public var weeklyMessageLength: Int
        /// Where counters go; a Prometheus registry when `/metrics` is served.
        public var metrics: BotMetrics
        /// Added to "no such Last.fm user", in the asker's language, e.g. the demo's list of users.
        public var unknownUserHint: (@Sendable (Language) -> String)?
        /// Draws cover collages; tests swap in one that fails.
        public var collageRenderer: any CollageRendering
        /// Measures a collage's time budget. Separate from `clock`, which tests often make
        /// immediate: the budget is about real work taking real time.
        public var collageClock: any Clock<Duration>
        /// When a chat is shown "typing…" during a slow answer. Separate from `clock`, which
        /// tests often make immediate: it is about how long a person waits.
        public var chatActionClock: any Clock<Duration>
        /// Paces the weekly prefetch between users. Separate from `clock`, so that a test can
        /// tell the prefetcher's pauses from a rate limit holding it up.
        public var prefetchClock: any Clock<Duration>

        public init(
            clock: any Clock<Duration> = ContinuousClock(),
            breakerClock: any Clock<Duration> = ContinuousClock(),
            now: @escaping @Sendable () -> Date = Date.init,
            makeLogger: @escaping @Sendable (String) -> Logger = { Logger(label: $0) },
            lastFMRequestsPerSecond: Int = 5,
            lastFMRetry: RetryPolicy = RetryPolicy(),
            listenBrainzRequestsPer10Seconds: Int = 20,
            libreFMRequestsPerSecond: Int = 2,
            telegramRetry: RetryPolicy = RetryPolicy(maxAttempts: 5, initialDelay: .seconds(1), maxDelay: .seconds(30)),
            bot: BotService.Settings? = nil,
            delivery: OutboxDeliverer.Settings = OutboxDeliverer.Settings(),
            weeklyMessageLength: Int = 4096,
            metrics: BotMetrics = .none,
            unknownUserHint: (@Sendable (Language) -> String)? = nil,
            collageRenderer: any CollageRendering = CollageRenderer(),
            collageClock: any Clock<Duration> = ContinuousClock(),
            chatActionClock: any Clock<Duration> = ContinuousClock(),
            prefetchClock: any Clock<Duration> = ContinuousClock()
        ) {
            self.chatActionClock = chatActionClock
            self.prefetchClock = prefetchClock
            self.collageClock = collageClock
            self.collageRenderer = collageRenderer
            self.clock = clock
            self.breakerClock = breakerClock
            self.now = now
            self.makeLogger = makeLogger
            self.lastFMRequestsPerSecond = lastFMRequestsPerSecond
            self.lastFMRetry = lastFMRetry
            self.listenBrainzRequestsPer10Seconds = listenBrainzRequestsPer10Seconds
            self.libreFMRequestsPerSecond = libreFMRequestsPerSecond
            self.telegramRetry = telegramRetry
            self.bot = bot
            self.delivery = delivery
            self.weeklyMessageLength = weeklyMessageLength
            self.metrics = metrics
            self.unknownUserHint = unknownUserHint
        }
    }

    public let configuration: BotConfiguration
    public let options: Options
    let lastFMTransport: any HTTPTransport
    let lastFMKey: Secret

    /// - Parameters:
    ///   - lastFMTransport: the network for every listening source and cover host, or
    ///     `DemoLastFMTransport` for the offline demo.
    ///   - lastFMKey: the key to send; the demo needs none.
    public init(configuration: BotConfiguration, lastFMTransport: any HTTPTransport, lastFMKey: Secret, options: Options = Options()) {
        self.configuration = configuration
        self.options = options
        self.lastFMTransport = lastFMTransport
        self.lastFMKey = lastFMKey
    }

    /// When weekly posts are due, from `THROWBACK_SCHEDULE`, `THROWBACK_TIMEZONE` and `THROWBACK_CHAT_ID`.
    public var calendar: WeeklyCalendar {
        WeeklyCalendar(configuration)
    }

    /// The command set with its guards. Without Telegram (a terminal), nobody is rate limited.
    public func commands(
        lastFM: any LastFMClient, listening: any ListeningHistory, breaker: CircuitBreaker, store: BotStore, telegram: (any TelegramClient)?,
        weekly: WeeklyPostControls
    ) -> BotCommands {
        let metrics = options.metrics
        return BotCommands(CommandSet.Dependencies(
            engine: ThrowbackEngine(history: listening, now: options.now), lastFM: lastFM, store: store,
            rateLimit: RateLimitGuard(limits: telegram == nil ? .unlimited : configuration.rateLimits, clock: options.clock),
            breaker: breaker,
            // An admin check is part of answering a command: it does not wait out a long 429.
            admin: AdminGuard(globalAdmins: configuration.adminUserIDs, telegram: telegram, clock: options.clock, patience: .seconds(10)),
            validUser: ValidListenerGuard(history: listening, clock: options.clock, unknownUserHint: options.unknownUserHint),
            weekly: weekly, unknownUserHint: options.unknownUserHint, inlineMode: telegram != nil
        )) { outcome in
            // The log's line per command is the Telegram handler's, which knows when the answer is queued.
            let (result, guardName) = outcome.labels
            metrics.increment("vinylogue_commands_total", [("command", outcome.command), ("outcome", result), ("guard", guardName)])
        }
    }

    /// Cover collages for throwbacks over the shared Last.fm chain; downloaded covers are kept
    /// in `COVER_CACHE_MB` next to the database when `keepCovers` is set.
    public func collagePhotos(lastFM: any LastFMClient, store: BotStore, keepCovers: Bool) -> CollagePhotos {
        let logger = options.makeLogger("covers")
        let cache = keepCovers && configuration.coverCacheMB > 0
            ? CoverDiskCache(directory: configuration.coverCacheDirectory, capacityBytes: configuration.coverCacheMB << 20, logger: logger)
            : nil
        let downloader = CoverDownloader(transport: counted(lastFMTransport), cache: cache, metrics: options.metrics, logger: logger)
        let maker = CollageMaker(
            lastFM: lastFM, downloader: downloader, renderer: options.collageRenderer, clock: options.collageClock, metrics: options.metrics, logger: logger
        )
        return CollagePhotos(maker: maker, store: store, metrics: options.metrics, now: options.now, clock: options.clock, logger: logger)
    }

    /// The bot and its weekly post, sharing one Last.fm client chain, one Telegram client
    /// chain and one outbox.
    public struct Services: Sendable {
        /// Polls, answers, and runs the outbox's deliverer while it runs.
        public let bot: BotService
        /// Posts weekly throwbacks when they are due.
        public let scheduler: WeeklyScheduler
        /// Fetches the weeks of the posts due in the next day ahead, as background work.
        public let prefetcher: WeeklyPrefetcher
        /// Composes one chat's weekly post for the outbox, exactly once per week.
        public let poster: WeeklyPoster
        /// Sends every message, from the outbox.
        public let outbox: OutboxDeliverer
        /// The weekly post as it would read, without sending.
        public let preview: WeeklyPostPreview
        /// Whether polling (or the webhook) works and the database takes writes, for `/healthz`.
        public let health: BotHealth
        /// Where Telegram posts updates, for the HTTP server to serve; nil when the bot polls.
        public let webhook: WebhookInbox?

        /// What `vinylogue-bot run` runs in its service group.
        public var all: [any Service] { [bot, scheduler, prefetcher] }
    }

    /// How long replies may wait in the outbox, from `REPLY_TTL`.
    public var lifetimes: OutboxLifetimes { OutboxLifetimes(reply: configuration.replyTTL) }

    /// The long-polling bot and its weekly post over `telegramTransport`, with their state in `store`.
    public func services(telegramTransport: any HTTPTransport, token: Secret, store: BotStore) -> Services {
        var settings = options.bot ?? BotService.Settings(poller: .init(timeout: configuration.pollTimeout))
        settings.inlineCollageChat = configuration.inlineCollageChatID
        let logger = options.makeLogger("bot")
        let webhook = webhookInbox(token: token, allowedUpdates: settings.poller.allowedUpdates)
        let health = BotHealth(store: store, pollTimeout: configuration.pollTimeout, clock: options.clock, now: options.now, byWebhook: webhook != nil)
        let (http, calls, messages) = { ($0.polling, $0.calls, $0.messages) }(telegramClients(transport: telegramTransport, token: token, store: store))
        let breaker = breaker()
        let lastFM = lastFM(breaker: breaker, store: store)
        let listening = listening(lastFM: lastFM, store: store)
        let composer = WeeklyPostComposer(engine: ThrowbackEngine(history: listening, now: options.now))
        let weeklyLogger = options.makeLogger("weekly")
        let photos = collagePhotos(lastFM: lastFM, store: store, keepCovers: true)
        let pruner = StoragePruner(
            store: store, listeningCacheBytes: configuration.listeningCacheMB << 20, now: options.now, logger: options.makeLogger("storage")
        )
        let outbox = OutboxDeliverer(
            store: store, telegram: messages, photos: photos, pruner: pruner, settings: options.delivery, clock: options.clock, now: options.now,
            metrics: options.metrics, logger: options.makeLogger("outbox"), executor: telegramTransport.executor
        )
        let poster = WeeklyPoster(
            composer: composer, store: store, outbox: outbox, now: options.now, layout: weeklyLayout(photos: photos), lifetimes: lifetimes,
            metrics: options.metrics, logger: weeklyLogger
        )
        let changes = ScheduleChanges()
        let weekly = WeeklyPostControls(
            calendar: calendar, changes: changes, posting: TelegramWeeklyPosting(poster: poster, now: options.now), now: options.now
        )
        let bot = BotService(
            telegram: calls, pollingClient: http,
            commands: commands(lastFM: lastFM, listening: listening, breaker: breaker, store: store, telegram: calls, weekly: weekly),
            store: store, journal: UpdateJournal(store: store, now: options.now), outbox: outbox, lifetimes: lifetimes, settings: settings,
            photos: photos, health: health, metrics: options.metrics, now: options.now, clock: options.clock,
            chatActionClock: options.chatActionClock, apiURL: configuration.telegramAPIURL, executor: telegramTransport.executor, webhook: webhook, logger: logger
        )
        let scheduler = WeeklyScheduler(
            poster: poster, store: store, calendar: calendar, changes: changes, clock: options.clock, now: options.now,
            logger: weeklyLogger
        )
        let prefetcher = WeeklyPrefetcher(
            composer: composer, layout: poster.layout, store: store, calendar: calendar, clock: options.prefetchClock, now: options.now,
            metrics: options.metrics, logger: weeklyLogger
        )
        return Services(
            bot: bot, scheduler: scheduler, prefetcher: prefetcher, poster: poster, outbox: outbox,
            preview: WeeklyPostPreview(composer: composer, store: store, layout: poster.layout), health: health, webhook: webhook
        )
    }
}
