import Foundation
import Logging
import Networking
import PostgresStore

/// The configuration contract: every key of `.env.example`, read from the environment and
/// from `.env` in the working directory (the real environment wins). Secrets are marked so
/// that swift-configuration redacts them in its own output.
public struct BotConfiguration: Sendable {
    public var telegramToken: Secret?
    public var telegramAPIURL: URL
    public var lastFMAPIKey: Secret?
    public var lastFMAPIURL: URL
    /// `LISTENBRAINZ_API_URL`: the ListenBrainz API root, with or without its `/1/`.
    public var listenBrainzAPIURL: URL
    /// `LISTENBRAINZ_TOKEN`: optional; a user token raises ListenBrainz's rate limit.
    public var listenBrainzToken: Secret?
    /// `LIBREFM_API_URL`: Libre.fm's Last.fm-compatible API root.
    public var libreFMAPIURL: URL
    /// `COVER_ART_ARCHIVE_URL`: where ListenBrainz albums' covers are found by release MBID.
    public var coverArtArchiveURL: URL
    /// `DATABASE_PATH`: the SQLite file, unless `databaseURL` is set.
    public var databasePath: String
    /// `DATABASE_URL`: the PostgreSQL database the bot keeps its state in, which replicas
    /// share; nil keeps it in SQLite at `databasePath`.
    public var databaseURL: PostgresURL?
    /// The most megabytes downloaded album covers may take on disk; 0 keeps none.
    public var coverCacheMB: Int
    /// `LISTENING_CACHE_MB`: the most megabytes of listening data (charts, album info) the
    /// database keeps; beyond it, the answers unused longest go.
    public var listeningCacheMB: Int
    public var adminUserIDs: [Int64]
    public var throwbackChatID: Int64?
    /// Where collages for inline results are uploaded, so that Telegram knows them by
    /// `file_id`: an inline message can take no upload. Nil: inline results stay text.
    public var inlineCollageChatID: Int64?
    public var schedule: WeeklySchedule
    public var timeZone: TimeZone
    /// `THROWBACK_TIMEZONE` as configured, to show (see `PostingTime.zoneName`).
    public var timeZoneName: String
    public var pollTimeout: Int
    public var logLevel: Logger.Level
    /// Commands per Telegram user (a burst and a rate) and per chat (`RATE_LIMIT_USER`, `RATE_LIMIT_CHAT`).
    public var rateLimits: RateLimitGuard.Limits
    /// `LOG_FORMAT`: human-readable lines, or one JSON object a line for log shippers.
    public var logFormat: LogFormat
    /// `HTTP_PORT`: where `/healthz` and `/metrics` are served; nil keeps them off.
    public var httpPort: Int?
    /// `HTTP_HOST`: the address they are bound to.
    public var httpHost: String
    /// `REPLY_TTL`: a reply that could not be sent for this long is dropped.
    public var replyTTL: Duration
    /// `OUTBOX_LEASE`: how long a process holds a chat's outbox without renewing it; once a
    /// process dies, another sends that chat's messages after this long.
    public var outboxLease: Duration
    /// `TELEGRAM_WEBHOOK_URL`: the public HTTPS URL Telegram posts updates to; nil polls.
    public var webhookURL: URL?
    /// `TELEGRAM_WEBHOOK_SECRET`: the secret Telegram sends with each update; nil derives one
    /// from the bot token (`webhookSecret(token:)`).
    public var webhookSecret: Secret?
    /// `TELEGRAM_WEBHOOK_MAX_CONNECTIONS`: how many updates Telegram may post at once.
    public var webhookMaxConnections: Int

    public enum LogFormat: String, Sendable {
        case text
        case json
    }

    /// Every key at its default; `run` still needs a token and a key.
    public init(
        telegramToken: Secret? = nil, telegramAPIURL: URL = URL(string: "https://api.telegram.org")!,
        lastFMAPIKey: Secret? = nil, lastFMAPIURL: URL = URL(string: "https://ws.audioscrobbler.com/2.0/")!,
        databasePath: String = "vinylogue.sqlite", adminUserIDs: [Int64] = [], throwbackChatID: Int64? = nil,
        schedule: WeeklySchedule = WeeklySchedule("mon 09:00")!, timeZone: TimeZone = .gmt, timeZoneName: String? = nil,
        pollTimeout: Int = 50, logLevel: Logger.Level = .info, rateLimits: RateLimitGuard.Limits = .init(),
        logFormat: LogFormat = .text, httpPort: Int? = nil, httpHost: String = "127.0.0.1", coverCacheMB: Int = 200,
        listeningCacheMB: Int = 50, replyTTL: Duration = .seconds(3600), outboxLease: Duration = .seconds(30),
        listenBrainzAPIURL: URL = URL(string: "https://api.listenbrainz.org/1/")!, listenBrainzToken: Secret? = nil,
        libreFMAPIURL: URL = URL(string: "https://libre.fm/2.0/")!, coverArtArchiveURL: URL = URL(string: "https://coverartarchive.org/")!,
        inlineCollageChatID: Int64? = nil, webhookURL: URL? = nil, webhookSecret: Secret? = nil, webhookMaxConnections: Int = 40,
        databaseURL: PostgresURL? = nil
    ) {
        self.databaseURL = databaseURL
        self.webhookURL = webhookURL
        self.webhookSecret = webhookSecret
        self.webhookMaxConnections = webhookMaxConnections
        self.inlineCollageChatID = inlineCollageChatID
        self.listenBrainzAPIURL = listenBrainzAPIURL
        self.listenBrainzToken = listenBrainzToken
        self.libreFMAPIURL = libreFMAPIURL
        self.coverArtArchiveURL = coverArtArchiveURL
        self.replyTTL = replyTTL
        self.outboxLease = outboxLease
        self.coverCacheMB = coverCacheMB
        self.listeningCacheMB = listeningCacheMB
        self.telegramToken = telegramToken
        self.telegramAPIURL = telegramAPIURL
        self.lastFMAPIKey = lastFMAPIKey
        self.lastFMAPIURL = lastFMAPIURL
        self.databasePath = databasePath
        self.adminUserIDs = adminUserIDs
        self.throwbackChatID = throwbackChatID
        self.schedule = schedule
        self.timeZone = timeZone
        self.timeZoneName = timeZoneName ?? timeZone.displayName
        self.pollTimeout = pollTimeout
        self.logLevel = logLevel
        self.rateLimits = rateLimits
        self.logFormat = logFormat
        self.httpPort = httpPort
        self.httpHost = httpHost
    }

    /// The keys whose values are secret.
    public static let secretKeys: Set<String> = [
        "TELEGRAM_BOT_TOKEN", "LASTFM_API_KEY", "LISTENBRAINZ_TOKEN", "TELEGRAM_WEBHOOK_SECRET", "DATABASE_URL",
    ]

    /// Every key this program reads, as `.env.example` lists them.
    public static let keys = [
        "TELEGRAM_BOT_TOKEN", "TELEGRAM_API_URL", "LASTFM_API_KEY", "LASTFM_API_URL",
        "LISTENBRAINZ_API_URL", "LISTENBRAINZ_TOKEN", "LIBREFM_API_URL", "COVER_ART_ARCHIVE_URL",
        "DATABASE_PATH", "DATABASE_URL", "COVER_CACHE_MB", "LISTENING_CACHE_MB", "ADMIN_USER_IDS",
        "THROWBACK_CHAT_ID", "INLINE_COLLAGE_CHAT_ID", "THROWBACK_SCHEDULE", "THROWBACK_TIMEZONE", "POLL_TIMEOUT", "LOG_LEVEL", "LOG_FORMAT",
        "RATE_LIMIT_USER", "RATE_LIMIT_CHAT", "HTTP_PORT", "HTTP_HOST", "REPLY_TTL", "OUTBOX_LEASE",
        "TELEGRAM_WEBHOOK_URL", "TELEGRAM_WEBHOOK_SECRET", "TELEGRAM_WEBHOOK_MAX_CONNECTIONS",
    ]

    /// One line with the effective configuration, secrets shown only as set or unset.
    public var summary: String {
        let secret = { (value: Secret?) in value == nil ? "unset" : "set" }
        return [
            "TELEGRAM_BOT_TOKEN=\(secret(telegramToken))", "TELEGRAM_API_URL=\(telegramAPIURL.absoluteString)",
            "LASTFM_API_KEY=\(secret(lastFMAPIKey))", "LASTFM_API_URL=\(lastFMAPIURL.absoluteString)",
            "DATABASE_PATH=\(databasePath)", "DATABASE_URL=\(databaseURL?.description ?? "unset")", "COVER_CACHE_MB=\(coverCacheMB)", "LISTENING_CACHE_MB=\(listeningCacheMB)",
            "ADMIN_USER_IDS=\(adminUserIDs.map(String.init).joined(separator: ","))",
            "THROWBACK_CHAT_ID=\(throwbackChatID.map(String.init) ?? "")", "THROWBACK_SCHEDULE=\(schedule)",
            "THROWBACK_TIMEZONE=\(timeZoneName)", "POLL_TIMEOUT=\(pollTimeout)", "LOG_LEVEL=\(logLevel)",
            "LOG_FORMAT=\(logFormat.rawValue)", "RATE_LIMIT_USER=\(rateLimits.user.burst),\(rateLimits.user.perMinute)",
            "RATE_LIMIT_CHAT=\(rateLimits.chat.perMinute)", "HTTP_PORT=\(httpPort.map(String.init) ?? "off")", "HTTP_HOST=\(httpHost)",
            "REPLY_TTL=\(Int(replyTTL.seconds))s", "OUTBOX_LEASE=\(Int(outboxLease.seconds))s", "INLINE_COLLAGE_CHAT_ID=\(inlineCollageChatID.map(String.init) ?? "")",
            "LISTENBRAINZ_API_URL=\(listenBrainzAPIURL.absoluteString)", "LISTENBRAINZ_TOKEN=\(secret(listenBrainzToken))",
            "LIBREFM_API_URL=\(libreFMAPIURL.absoluteString)", "COVER_ART_ARCHIVE_URL=\(coverArtArchiveURL.absoluteString)",
            "TELEGRAM_WEBHOOK_URL=\(webhookURL?.absoluteString ?? "off")", "TELEGRAM_WEBHOOK_SECRET=\(webhookSecret == nil ? "derived" : "set")",
            "TELEGRAM_WEBHOOK_MAX_CONNECTIONS=\(webhookMaxConnections)",
        ].joined(separator: " ")
    }

    /// When the weekly post is due for chats without a schedule of their own, with the zone
    /// named as configured.
    public var defaultPostingTime: PostingTime {
        PostingTime(schedule: schedule, zone: timeZone, zoneName: timeZoneName)
    }

    /// Where downloaded covers are kept: a folder next to the database, named after it
    /// (`vinylogue.sqlite` → `vinylogue-covers`).
    public var coverCacheDirectory: URL {
        let database = URL(fileURLWithPath: databasePath)
        let name = database.deletingPathExtension().lastPathComponent
        return database.deletingLastPathComponent().appendingPathComponent("\(name)-covers", isDirectory: true)
    }

}
