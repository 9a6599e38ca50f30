import LastFM
import ListenBrainz
import Logging
import Networking
import Telegram

/// The clients of every service the bot asks, each a stack of the same adaptors (written once,
/// in `Networking`): Last.fm, Libre.fm and ListenBrainz counted, paced, retried and behind
/// their own breakers; cover downloads counted; Telegram counted, and retried for calls that
/// are no chat message (the outbox keeps the flood limits and retries messages itself).
extension BotAssembly {
    /// The Last.fm client chain (`serviceChain`), cached in `store` over the breaker's refusal,
    /// so that cached answers survive an outage.
    public func lastFM(breaker: CircuitBreaker, store: BotStore) -> any LastFMClient {
        let client = HTTPLastFMClient(
            transport: lastFMTransport, baseURL: configuration.lastFMAPIURL, apiKey: lastFMKey, logger: options.makeLogger("lastfm")
        )
        return serviceChain(client, .lastFM, requests: options.lastFMRequestsPerSecond, per: .seconds(1), breaker: breaker)
            .cached(in: SQLiteLastFMCache(store: store, now: options.now), now: options.now, metrics: options.metrics)
    }

    /// Every listening source behind one history, each with its own chain (`serviceChain`):
    /// Last.fm through `lastFM`; ListenBrainz and Libre.fm, whose breakers are their own (one
    /// service's outage never blocks another's users), their built weeks cached in `store`.
    /// Every source's cache shares its misses.
    public func listening(lastFM: any LastFMClient, store: BotStore) -> ListeningSources {
        let cache = SQLiteLastFMCache(store: store, now: options.now)
        let listenBrainz = HTTPListenBrainzClient(
            transport: lastFMTransport, baseURL: configuration.listenBrainzAPIURL, token: configuration.listenBrainzToken,
            logger: options.makeLogger("listenbrainz")
        )
        // GNU FM checks no key for reading; Last.fm's key is not sent to another service.
        let libreFM = HTTPLastFMClient(
            transport: lastFMTransport, baseURL: configuration.libreFMAPIURL, apiKey: Self.libreFMKey, service: ScrobbleSource.libreFM.serviceName,
            logger: options.makeLogger("librefm")
        )
        return ListeningSources(
            lastFM: LastFMHistory(lastFM: lastFM),
            listenBrainz: CachedListeningHistory(
                base: ListenBrainzHistory(
                    client: serviceChain(listenBrainz, .listenBrainz, requests: options.listenBrainzRequestsPer10Seconds, per: .seconds(10)),
                    coverArtArchive: configuration.coverArtArchiveURL, now: options.now
                ),
                namespace: "listenbrainz", store: cache, now: options.now
            ),
            libreFM: CachedListeningHistory(
                base: LibreFMHistory(client: serviceChain(libreFM, .libreFM, requests: options.libreFMRequestsPerSecond, per: .seconds(1)), now: options.now),
                namespace: "librefm", store: cache, now: options.now
            )
        )
    }

    /// One listening service's adaptors, the same for each: counted as it reaches the network,
    /// paced to `requests` per `window`, retried, and behind its circuit breaker (its own
    /// unless one is given).
    func serviceChain<Client: ServiceClient>(
        _ client: Client, _ source: ScrobbleSource, requests: Int, per window: Duration, breaker: CircuitBreaker? = nil
    ) -> Adapted<Adapted<Adapted<Adapted<Client, Instrumented>, RateLimited>, Retrying>, CircuitBreaking> {
        let api = source.rawValue.lowercased()
        return client.instrumented(api: api, options.metrics)
            .rateLimited(requests: requests, per: window, clock: options.clock)
            .retrying(options.lastFMRetry, api: api, clock: options.clock, logger: options.makeLogger(api), metrics: options.metrics)
            .circuitBroken(by: breaker ?? self.breaker(source), whenOpen: ListeningError.circuitOpen(source.serviceName))
    }

    /// The key sent to Libre.fm, whose server wants one in the query but checks none for reading.
    public static let libreFMKey = Secret("vinylogue-bot-read-only-00000000")

    /// A source's circuit breaker, reporting its state as `vinylogue_<source>_circuit_open` and in the log.
    func breaker(_ source: ScrobbleSource = .lastFM) -> CircuitBreaker {
        let metrics = options.metrics
        let label = source.rawValue.lowercased()
        let gauge = "vinylogue_\(label)_circuit_open"
        let logger = options.makeLogger(label)
        let service = source.serviceName
        metrics.record(gauge, 0)
        return CircuitBreaker(clock: options.breakerClock) { state in
            metrics.record(gauge, state == .closed ? 0 : 1)
            logger.notice(state == .closed ? "\(service) is answering again" : "\(service) keeps failing; pausing calls for a minute")
        }
    }

    /// Cover downloads, counted as they reach the network like every service's requests. No
    /// more: a collage has its own time budget, and a cover too big is a transport error,
    /// which says nothing of its host's health.
    func counted(_ transport: some HTTPTransport) -> any HTTPTransport {
        transport.instrumented(api: "covers", options.metrics)
    }

    /// The Bot API client chains over `transport`: each adaptor is concrete, so a call through a
    /// chain is compiled for its request type, not looked up at run time.
    public struct TelegramClients: Sendable {
        public typealias Counted = Adapted<HTTPTelegramClient, Instrumented>
        /// Long polls and start-up calls: instrumented, without adaptors (the poller backs off itself).
        public let polling: Counted
        /// Calls that are no chat message (admin lists, answers to presses): retried within their patience.
        public let calls: Adapted<Counted, Retrying>
        /// Chat messages, for the outbox, which keeps the flood limits and retries them itself.
        public let messages: MigratingTelegramClient<Counted>
    }

    public func telegramClients(transport: any HTTPTransport, token: Secret, store: BotStore) -> TelegramClients {
        let logger = options.makeLogger("bot")
        let telegramLogger = options.makeLogger("telegram")
        let http = HTTPTelegramClient(transport: transport, baseURL: configuration.telegramAPIURL, token: token, logger: telegramLogger)
            .instrumented(api: "telegram", options.metrics)
        return TelegramClients(
            polling: http,
            calls: http.retrying(options.telegramRetry, api: "telegram", clock: options.clock, logger: telegramLogger, metrics: options.metrics),
            messages: http.followingMigrations { from, to in await store.followMigration(from: from, to: to, logger: logger) }
        )
    }
}
