import AsyncAlgorithms
import Foundation
import Logging
import Networking
import ServiceLifecycle
import Telegram

/// The bot as a service: start-up (`getMe`, then `deleteWebhook` to poll or `setWebhook` for a
/// webhook, the bot's profile), then poll (or take the webhook's posts) → journal → dispatch →
/// outbox until graceful shutdown, which cancels the
/// in-flight poll at once, gives updates in progress a few seconds, and then gives messages
/// being sent a few seconds more. What is left waits in the inbox and the outbox for the
/// next start.
public struct BotService: Service, CustomStringConvertible {
    public struct Settings: Sendable {
        public var poller: LongPoller.Configuration
        public var maxConcurrentChats: Int
        public var shutdownGrace: Duration
        public var startupBackoff: RetryPolicy
        /// `INLINE_COLLAGE_CHAT_ID`: where collages for inline results are uploaded.
        public var inlineCollageChat: Int64?

        public init(
            poller: LongPoller.Configuration = .init(),
            maxConcurrentChats: Int = 16,
            shutdownGrace: Duration = .seconds(4),
            startupBackoff: RetryPolicy = RetryPolicy(maxAttempts: .max, initialDelay: .seconds(1), maxDelay: .seconds(60)),
            inlineCollageChat: Int64? = nil
        ) {
            self.inlineCollageChat = inlineCollageChat
            self.poller = poller
            self.maxConcurrentChats = maxConcurrentChats
            self.shutdownGrace = shutdownGrace
            self.startupBackoff = startupBackoff
        }
    }

    /// The client for calls that are no chat message (answers to button presses): retrying,
    /// within each call's patience.
    private let telegram: any TelegramClient
    /// The client for polling, without adaptors: the poller does its own backoff.
    private let pollingClient: any TelegramClient
    private let commands: BotCommands
    private let store: BotStore
    private let journal: UpdateJournal
    private let outbox: OutboxDeliverer
    private let lifetimes: OutboxLifetimes
    private let settings: Settings
    private let photos: CollagePhotos?
    private let health: BotHealth?
    private let metrics: BotMetrics
    private let now: @Sendable () -> Date
    private let clock: any Clock<Duration>
    /// When a chat is shown "typing…" during a slow answer.
    private let chatActionClock: any Clock<Duration>
    private let elapsed: ElapsedClock
    /// `TELEGRAM_API_URL`, to name in the log while start-up fails.
    private let apiURL: URL
    /// Where polling and handling run: the Telegram transport's own thread, so that an
    /// update's answer and its reply never pass between threads.
    private let executor: (any TaskExecutor)?
    /// Where Telegram posts updates instead of being polled; nil polls.
    private let webhook: WebhookInbox?
    private let logger: Logger

    public init(
        telegram: any TelegramClient, pollingClient: any TelegramClient, commands: BotCommands, store: BotStore,
        journal: UpdateJournal, outbox: OutboxDeliverer, lifetimes: OutboxLifetimes = OutboxLifetimes(), settings: Settings = Settings(),
        photos: CollagePhotos? = nil, health: BotHealth? = nil, metrics: BotMetrics = .none,
        now: @escaping @Sendable () -> Date = Date.init, clock: any Clock<Duration> = ContinuousClock(),
        chatActionClock: any Clock<Duration> = ContinuousClock(), apiURL: URL = HTTPTelegramClient.defaultBaseURL,
        executor: (any TaskExecutor)? = nil, webhook: WebhookInbox? = nil, logger: Logger = Logger(label: "bot")
    ) {
        self.webhook = webhook
        self.apiURL = apiURL
        self.executor = executor
        self.outbox = outbox
        self.lifetimes = lifetimes
        self.telegram = telegram
        self.pollingClient = pollingClient
        self.commands = commands
        self.store = store
        self.journal = journal
        self.settings = settings
        self.photos = photos
        self.health = health
        self.metrics = metrics
        self.now = now
        self.clock = clock
        self.chatActionClock = chatActionClock
        self.elapsed = ElapsedClock(clock)
        self.logger = logger
    }

    /// The service group logs services by description; this one names itself, never its clients.
    public var description: String { "BotService" }

    public func run() async throws {
        try await withTaskExecutorPreference(executor) { try await serve() }
    }

    private func serve() async throws {
        // Among replicas, every update is handled from the journal, leftovers included.
        let feed = store.servesReplicas ? JournalFeed(
            journal: journal, owner: outbox.owner, lease: outbox.settings.laneLease, limit: UpdateDispatcher.defaultMaxQueued, now: now,
            logger: logger
        ) : nil
        let intake = UpdateIntake(journal: journal, store: store, metrics: metrics, now: now, feed: feed)
        let leftovers = feed == nil ? try await journal.unhandled() : []
        // The webhook opens after the leftovers are read, so that none is among both, and
        // before Telegram learns of it, so that its first post finds it open.
        let posted = webhook?.open(intake)
        defer { webhook?.close() }
        guard let me = try await cancelWhenGracefulShutdown({ try await startUp() }) else {
            // A SIGTERM while Telegram is unreachable ends the retries at once: say so.
            return logger.notice("stopping before the bot started: Telegram start-up had not finished")
        }
        logger.info("bot is running", metadata: ["username": "\(me.username ?? me.firstName)"])
        let handler = ChatUpdateHandler(
            telegram: telegram, router: commands.router.named(me.username), throwback: commands.throwback,
            navigation: YearNavigation(store: store), store: store, outbox: outbox, photos: photos, lifetimes: lifetimes, metrics: metrics,
            inlineCollageChat: settings.inlineCollageChat, scheduleChanges: commands.scheduleChanges, now: now, clock: clock,
            chatActionClock: chatActionClock, logger: logger
        )
        let health = health
        if !leftovers.isEmpty {
            logger.notice("handling updates that arrived before the last stop", metadata: ["count": "\(leftovers.count)"])
        }
        let poller = { @Sendable (offset: Int64?) in
            LongPoller(
                client: pollingClient, configuration: settings.poller, initialOffset: offset,
                clock: clock, logger: logger, onBatch: intake.polled, onPoll: { await health?.pollSucceeded() }
            )
        }
        let dispatcher = UpdateDispatcher(
            maxConcurrentChats: settings.maxConcurrentChats, shutdownGrace: settings.shutdownGrace, clock: clock, handler: handler,
            finished: { feed?.finished($0) }
        )
        // Among replicas, each sends its share of the overall flood limit.
        let roster = feed.map { _ in ReplicaRoster(store: store, owner: outbox.owner, limiter: outbox.limiter, now: now, logger: logger) }
        try await roster?.join()
        try await withThrowingTaskGroup(of: Void.self) { [outbox] delivery in
            // Messages left from the last run, and from other processes, are found by scanning.
            delivery.addTask { await outbox.run() }
            if let roster { delivery.addTask { await roster.run() } }
            defer { delivery.cancelAll() }
            do {
                if let feed {
                    try await handle(feed, polling: posted == nil ? poller : nil, dispatcher: dispatcher)
                } else if let posted {
                    try await dispatcher.run(chain(leftovers.async, posted))
                } else {
                    try await dispatcher.run(chain(leftovers.async, poller(try await journal.offset())))
                }
            } catch {
                await outbox.stop()
                throw error
            }
            // The answers of the last updates handled go out, as far as the grace allows.
            await outbox.stop()
        }
        logger.info("bot stopped")
    }

    /// Among replicas: handles the updates the journal feed hands out, while (to poll) this
    /// replica polls whenever it has the turn. Returns at graceful shutdown; a refused token ends it.
    private func handle(
        _ feed: JournalFeed, polling poller: (@Sendable (Int64?) -> LongPoller)?, dispatcher: UpdateDispatcher
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await dispatcher.run(feed.updates) }
            if let poller {
                group.addTask { try await cancelWhenGracefulShutdown { try await pollInTurn(poller) } }
            }
            try await group.next()
            group.cancelAll()
        }
    }

    /// Polls while this replica has the poller's turn, which one replica on the database has at
    /// a time; tries for it every `Self.turnInterval` meanwhile. A replica that dies gives it up
    /// at once, and another takes it within that interval. Real time: it is about other processes.
    private func pollInTurn(_ poller: @Sendable (Int64?) -> LongPoller) async throws {
        let realTime = ElapsedClock.continuous
        while !Task.isCancelled {
            do {
                if let turn = try await store.takeTurn(.poller) {
                    defer { turn.end() }
                    logger.notice("this replica polls Telegram")
                    let updates = poller(try await journal.offset())
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        // Recorded in the journal by the intake, which yields nothing here.
                        group.addTask { for try await _ in updates {} }
                        group.addTask { while turn.isHeld() { try await realTime.sleep(Self.turnInterval) } }
                        try await group.next()
                        group.cancelAll()
                    }
                    if !Task.isCancelled { logger.warning("this replica lost its hold on the database, and so its turn to poll") }
                }
            } catch TelegramError.unauthorized {
                throw TelegramError.unauthorized
            } catch TelegramError.notFound {
                throw TelegramError.notFound
            } catch {
                if Task.isCancelled { return }
                logger.error("could not take the turn to poll; trying again", metadata: ["error": "\(error)"])
            }
            try? await realTime.sleep(Self.turnInterval)
        }
    }

    /// How often a replica without the poller's turn tries for it.
    static let turnInterval: Duration = .seconds(2)

    /// Learns the bot's username, sets the webhook or removes any (to poll), and publishes the menus and descriptions.
    /// Retries while Telegram is unreachable; a rejected token ends it at once.
    /// Returns nil if cancelled first.
    private func startUp() async throws -> User? {
        let started = elapsed.elapsed()
        var warned = false
        do {
            return try await settings.startupBackoff.run(
                sleep: elapsed.sleep,
                wait: { error, attempt in
                    (error as? TelegramError).flatMap { settings.startupBackoff.wait(beforeRetry: attempt, after: $0.verdict) }
                },
                willRetry: { error, _, delay in
                    // The base URL only: the token is part of every method's URL.
                    logger.notice("Telegram start-up failed; retrying", metadata: ["url": "\(apiURL)", "error": "\(error)", "delay": "\(delay)"])
                    if !warned, elapsed.elapsed() - started >= .seconds(60) {
                        warned = true
                        logger.warning(
                            "Telegram has not answered for a minute at \(apiURL) (\(error)): check TELEGRAM_API_URL, the network and DNS, and any proxy; still retrying"
                        )
                    }
                }
            ) {
                let me = try await pollingClient.getMe()
                if let webhook {
                    try await pollingClient.setWebhook(webhook.registration)
                    await health?.webhookSet()
                    logger.info("receiving updates by webhook", metadata: ["url": "\(webhook.registration.url.absoluteString)"])
                } else {
                    // Telegram answers getUpdates with 409 while a webhook is set; pending updates are kept.
                    try await pollingClient.deleteWebhook()
                }
                if let problem = Language.catalogProblem { logger.warning("\(problem)") }
                try await BotProfile(commands: commands.router.commands).publish(with: pollingClient, logger: logger)
                return me
            }
        } catch {
            if Task.isCancelled || error is CancellationError { return nil }
            throw error
        }
    }
}
