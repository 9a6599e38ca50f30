import Foundation
import LastFM
import Logging
import Networking
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
        public var telegramRetry: RetryPolicy
        public var bot: BotService.Settings?

        public init(
            clock: any Clock<Duration> = ContinuousClock(),
            breakerClock: any Clock<Duration> = ContinuousClock(),
            now: @escaping @Sendable () -> Date = Date.init,
            makeLogger: @escaping @Sendable (String) -> Logger = { Logger(label: $0) },
            lastFMRequestsPerSecond: Int = 5,
            lastFMRetry: RetryPolicy = RetryPolicy(),
            telegramRetry: RetryPolicy = RetryPolicy(maxAttempts: 5, initialDelay: .seconds(1), maxDelay: .seconds(30)),
            bot: BotService.Settings? = nil
        ) {
            self.clock = clock
            self.breakerClock = breakerClock
            self.now = now
            self.makeLogger = makeLogger
            self.lastFMRequestsPerSecond = lastFMRequestsPerSecond
            self.lastFMRetry = lastFMRetry
            self.telegramRetry = telegramRetry
            self.bot = bot
        }
    }

    public let configuration: BotConfiguration
    public let options: Options
    private let lastFMTransport: any HTTPTransport
    private let lastFMKey: Secret

    /// - Parameters:
    ///   - lastFMTransport: the network, or `DemoLastFMTransport` for the offline demo.
    ///   - lastFMKey: the key to send; the demo needs none.
    public init(configuration: BotConfiguration, lastFMTransport: any HTTPTransport, lastFMKey: Secret, options: Options = Options()) {
        self.configuration = configuration
        self.options = options
        self.lastFMTransport = lastFMTransport
        self.lastFMKey = lastFMKey
    }

    /// The Last.fm client chain: HTTP, rate limited, retried, feeding the circuit breaker,
    /// cached in `store` (under the breaker's refusal, so cached answers survive an outage).
    public func lastFM(breaker: CircuitBreaker, store: BotStore) -> any LastFMClient {
        let logger = options.makeLogger("lastfm")
        return HTTPLastFMClient(transport: lastFMTransport, baseURL: configuration.lastFMAPIURL, apiKey: lastFMKey, logger: logger)
            .rateLimited(requestsPerSecond: options.lastFMRequestsPerSecond, clock: options.clock)
            .retrying(options.lastFMRetry, clock: options.clock, logger: logger)
            .circuitBroken(by: breaker)
            .cached(in: SQLiteLastFMCache(store: store), now: options.now)
    }

    /// The command set with its guards. Without Telegram (a terminal), nobody is rate limited.
    public func commands(lastFM: any LastFMClient, breaker: CircuitBreaker, store: BotStore, telegram: (any TelegramClient)?) -> BotCommands {
        BotCommands(CommandSet.Dependencies(
            engine: ThrowbackEngine(lastFM: lastFM, now: options.now), lastFM: lastFM, store: store,
            rateLimit: RateLimitGuard(limits: telegram == nil ? .unlimited : configuration.rateLimits, clock: options.clock),
            breaker: breaker,
            admin: AdminGuard(globalAdmins: configuration.adminUserIDs, telegram: telegram, clock: options.clock),
            validUser: ValidLastFMUserGuard(lastFM: lastFM, clock: options.clock)
        ))
    }

    /// Commands for a terminal session: no Telegram, state in `store`.
    public func terminalCommands(store: BotStore) -> BotCommands {
        let breaker = CircuitBreaker(clock: options.breakerClock)
        return commands(lastFM: lastFM(breaker: breaker, store: store), breaker: breaker, store: store, telegram: nil)
    }

    /// The long-polling bot over `telegramTransport`, with its state in `store`.
    public func bot(telegramTransport: any HTTPTransport, token: Secret, store: BotStore) -> BotService {
        let logger = options.makeLogger("bot")
        let telegramLogger = options.makeLogger("telegram")
        let http = HTTPTelegramClient(transport: telegramTransport, baseURL: configuration.telegramAPIURL, token: token, logger: telegramLogger)
        let replies = http
            .throttled(clock: options.clock)
            .retrying(options.telegramRetry, clock: options.clock, logger: telegramLogger)
            .followingMigrations { from, to in
                logger.notice("group became a supergroup; its settings and roster follow it", metadata: ["from": "\(from)", "to": "\(to)"])
                do { try await store.migrateChat(from: from, to: to) } catch {
                    logger.error("could not move a migrated chat's data", metadata: ["error": "\(error)"])
                }
            }
        let breaker = CircuitBreaker(clock: options.breakerClock)
        let lastFM = lastFM(breaker: breaker, store: store)
        let settings = options.bot ?? BotService.Settings(poller: .init(timeout: configuration.pollTimeout))
        return BotService(
            telegram: replies, pollingClient: http,
            commands: commands(lastFM: lastFM, breaker: breaker, store: store, telegram: replies),
            store: store, journal: UpdateJournal(store: store, now: options.now), settings: settings,
            clock: options.clock, logger: logger
        )
    }
}
