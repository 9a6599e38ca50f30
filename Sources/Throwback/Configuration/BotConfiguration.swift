import Configuration
import Foundation
import Logging
import Networking

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
    public var databasePath: String
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
        inlineCollageChatID: Int64? = nil
    ) {
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
    public static let secretKeys: Set<String> = ["TELEGRAM_BOT_TOKEN", "LASTFM_API_KEY", "LISTENBRAINZ_TOKEN"]

    /// Every key this program reads, as `.env.example` lists them.
    public static let keys = [
        "TELEGRAM_BOT_TOKEN", "TELEGRAM_API_URL", "LASTFM_API_KEY", "LASTFM_API_URL",
        "LISTENBRAINZ_API_URL", "LISTENBRAINZ_TOKEN", "LIBREFM_API_URL", "COVER_ART_ARCHIVE_URL",
        "DATABASE_PATH", "COVER_CACHE_MB", "LISTENING_CACHE_MB", "ADMIN_USER_IDS",
        "THROWBACK_CHAT_ID", "INLINE_COLLAGE_CHAT_ID", "THROWBACK_SCHEDULE", "THROWBACK_TIMEZONE", "POLL_TIMEOUT", "LOG_LEVEL", "LOG_FORMAT",
        "RATE_LIMIT_USER", "RATE_LIMIT_CHAT", "HTTP_PORT", "HTTP_HOST", "REPLY_TTL", "OUTBOX_LEASE",
    ]

    /// A configuration and what was odd about it: keys that look like ours but are not, and
    /// lines of `.env` that are not `KEY=value`.
    public struct Loaded: Sendable {
        public var configuration: BotConfiguration
        /// One line each, for the log once it is set up.
        public var warnings: [String]
    }

    /// Reads the environment, then `.env` in the working directory if it exists; the real
    /// environment wins.
    public static func load(
        environment: [String: String] = ProcessInfo.processInfo.environment, environmentFile path: String = ".env"
    ) throws -> Loaded {
        let contents = FileManager.default.contents(atPath: path).map { EnvironmentFile.parse(String(decoding: $0, as: UTF8.self)) }
        let file = contents?.variables ?? [:]
        let secrets = SecretsSpecifier<String, String>.specific(secretKeys)
        let reader = ConfigReader(providers: [
            EnvironmentVariablesProvider(environmentVariables: environment, secretsSpecifier: secrets),
            EnvironmentVariablesProvider(environmentVariables: file, secretsSpecifier: secrets),
        ])
        let prefixes = Set(keys.map { String($0.prefix { $0 != "_" }) + "_" })
        let suspicious = file.keys.map { ($0, path) }
            + environment.keys.filter { key in prefixes.contains { key.hasPrefix($0) } }.map { ($0, "the environment") }
        // The line's text is not repeated: it may hold a secret that is not redacted, since it was never read as one.
        let unreadable = (contents?.ignoredLines ?? []).map { "line \($0) of \(path) is not KEY=value and is ignored" }
        let unknown = suspicious.filter { !keys.contains($0.0) }.sorted { $0.0 < $1.0 }.map { key, source in
            let hint = NearMiss.of(key, among: keys).map { "; did you mean \($0)?" } ?? ""
            return "\(EnvironmentFile.visible(key)) in \(source) is not a setting of vinylogue-bot and is ignored\(hint)"
        }
        // `docker run --env-file` passes an empty `HTTP_PORT=` on, over the image's port: the
        // endpoint is then off, which nobody meant.
        let emptyPort = environment["HTTP_PORT"].map { $0.trimmingCharacters(in: .whitespaces).isEmpty } == true
            ? ["HTTP_PORT is set but empty in the environment, so /healthz and /metrics are off; "
                + "if an env file sets it empty (docker run --env-file), delete that line to keep the image’s port"]
            : []
        return Loaded(configuration: try BotConfiguration(reader: reader), warnings: unreadable + unknown + emptyPort)
    }

    /// Reads and validates every key from `reader`.
    public init(reader: ConfigReader) throws {
        func text(_ key: String) -> String? {
            guard var value = reader.string(forKey: ConfigKey(key), isSecret: Self.secretKeys.contains(Self.envName(key)))?
                .trimmingCharacters(in: .whitespaces) else { return nil }
            // `.env` files often quote values; the quotes are not part of a token.
            for quote in ["\"", "'"] where value.count >= 2 && value.hasPrefix(quote) && value.hasSuffix(quote) {
                value = String(value.dropFirst().dropLast())
            }
            return value.isEmpty ? nil : value
        }
        func url(_ key: String, default fallback: String) throws -> URL {
            let raw = text(key) ?? fallback
            guard let url = URL(string: raw), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
                throw ConfigurationError.invalid(key: Self.envName(key), value: raw, expected: "an http(s) URL")
            }
            return url
        }
        func integer(_ key: String) throws -> Int64? {
            guard let raw = text(key) else { return nil }
            guard let value = Int64(raw) else {
                throw ConfigurationError.invalid(key: Self.envName(key), value: raw, expected: "a whole number")
            }
            return value
        }

        telegramToken = text("telegram.bot.token").map { Secret($0) }
        telegramAPIURL = try url("telegram.api.url", default: "https://api.telegram.org")
        lastFMAPIKey = text("lastfm.api.key").map { Secret($0) }
        lastFMAPIURL = try url("lastfm.api.url", default: "https://ws.audioscrobbler.com/2.0/")
        listenBrainzAPIURL = try url("listenbrainz.api.url", default: "https://api.listenbrainz.org/1/")
        listenBrainzToken = text("listenbrainz.token").map { Secret($0) }
        libreFMAPIURL = try url("librefm.api.url", default: "https://libre.fm/2.0/")
        coverArtArchiveURL = try url("cover.art.archive.url", default: "https://coverartarchive.org/")
        databasePath = text("database.path") ?? "vinylogue.sqlite"
        let coverMB = try integer("cover.cache.mb") ?? 200
        guard (0...100_000).contains(coverMB) else {
            throw ConfigurationError.invalid(key: "COVER_CACHE_MB", value: "\(coverMB)", expected: "megabytes between 0 and 100000")
        }
        coverCacheMB = Int(coverMB)
        let listeningMB = try integer("listening.cache.mb") ?? 50
        guard (1...100_000).contains(listeningMB) else {
            throw ConfigurationError.invalid(key: "LISTENING_CACHE_MB", value: "\(listeningMB)", expected: "megabytes between 1 and 100000")
        }
        listeningCacheMB = Int(listeningMB)
        adminUserIDs = try (text("admin.user.ids") ?? "").split(separator: ",").map {
            let id = $0.trimmingCharacters(in: .whitespaces)
            guard let value = Int64(id) else {
                throw ConfigurationError.invalid(key: "ADMIN_USER_IDS", value: id, expected: "comma-separated Telegram user ids")
            }
            return value
        }
        throwbackChatID = try integer("throwback.chat.id")
        inlineCollageChatID = try integer("inline.collage.chat.id")
        let scheduleText = text("throwback.schedule") ?? "mon 09:00"
        guard let schedule = WeeklySchedule(scheduleText) else {
            throw ConfigurationError.invalid(key: "THROWBACK_SCHEDULE", value: scheduleText, expected: "a weekday and time such as “mon 09:00”")
        }
        self.schedule = schedule
        let zoneName = text("throwback.timezone") ?? "UTC"
        guard let zone = TimeZone.named(zoneName) else {
            throw ConfigurationError.invalid(key: "THROWBACK_TIMEZONE", value: zoneName, expected: "an IANA time zone such as Europe/Berlin")
        }
        timeZone = zone
        timeZoneName = zoneName
        let timeout = try integer("poll.timeout") ?? 50
        guard (1...600).contains(timeout) else {
            throw ConfigurationError.invalid(key: "POLL_TIMEOUT", value: "\(timeout)", expected: "seconds between 1 and 600")
        }
        pollTimeout = Int(timeout)
        let levelName = (text("log.level") ?? "info").lowercased()
        guard let level = Logger.Level(rawValue: levelName) else {
            throw ConfigurationError.invalid(key: "LOG_LEVEL", value: levelName, expected: "trace, debug, info, notice, warning, error or critical")
        }
        logLevel = level
        let defaults = RateLimitGuard.Limits()
        let userText = text("rate.limit.user")
        guard let user = userText.map(RateLimitGuard.Rate.init(userSetting:)) ?? defaults.user else {
            throw ConfigurationError.invalid(
                key: "RATE_LIMIT_USER", value: userText ?? "",
                expected: "a burst and a rate per minute such as “15,45”, or one number for both, each 1–1000"
            )
        }
        let perChat = try integer("rate.limit.chat") ?? Int64(defaults.chat.perMinute)
        guard (1...1000).contains(perChat) else {
            throw ConfigurationError.invalid(key: "RATE_LIMIT_CHAT", value: "\(perChat)", expected: "commands per minute between 1 and 1000")
        }
        rateLimits = RateLimitGuard.Limits(user: user, chat: .init(burst: Int(perChat), perMinute: Int(perChat)))
        let formatName = (text("log.format") ?? "text").lowercased()
        guard let format = LogFormat(rawValue: formatName) else {
            throw ConfigurationError.invalid(key: "LOG_FORMAT", value: formatName, expected: "text or json")
        }
        logFormat = format
        if let port = try integer("http.port") {
            guard (1...65535).contains(port) else {
                throw ConfigurationError.invalid(key: "HTTP_PORT", value: "\(port)", expected: "a TCP port between 1 and 65535")
            }
            httpPort = Int(port)
        } else {
            httpPort = nil
        }
        httpHost = text("http.host") ?? "127.0.0.1"
        let ttlText = text("reply.ttl") ?? "1h"
        guard let ttl = Self.duration(ttlText), (60...86_400).contains(ttl) else {
            throw ConfigurationError.invalid(key: "REPLY_TTL", value: ttlText, expected: "a time between 1m and 24h, such as “1h”, “30m” or “900” (seconds)")
        }
        replyTTL = .seconds(ttl)
        let leaseText = text("outbox.lease") ?? "30s"
        guard let lease = Self.duration(leaseText), (1...600).contains(lease) else {
            throw ConfigurationError.invalid(key: "OUTBOX_LEASE", value: leaseText, expected: "a time between 1s and 10m, such as “30s” or “2m”")
        }
        outboxLease = .seconds(lease)
    }

    /// Seconds, or a number with `s`, `m` or `h`: how every time in the configuration, and on
    /// the command line, is written.
    public static func duration(_ text: String) -> Int64? {
        let text = text.lowercased()
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600]
        let (digits, unit) = text.last.flatMap { units[$0] }.map { (text.dropLast(), $0) } ?? (Substring(text), 1)
        guard let number = Int64(digits), number >= 0 else { return nil }
        let (seconds, overflow) = number.multipliedReportingOverflow(by: unit)
        return overflow ? nil : seconds
    }

    /// One line with the effective configuration, secrets shown only as set or unset.
    public var summary: String {
        let secret = { (value: Secret?) in value == nil ? "unset" : "set" }
        return [
            "TELEGRAM_BOT_TOKEN=\(secret(telegramToken))", "TELEGRAM_API_URL=\(telegramAPIURL.absoluteString)",
            "LASTFM_API_KEY=\(secret(lastFMAPIKey))", "LASTFM_API_URL=\(lastFMAPIURL.absoluteString)",
            "DATABASE_PATH=\(databasePath)", "COVER_CACHE_MB=\(coverCacheMB)", "LISTENING_CACHE_MB=\(listeningCacheMB)",
            "ADMIN_USER_IDS=\(adminUserIDs.map(String.init).joined(separator: ","))",
            "THROWBACK_CHAT_ID=\(throwbackChatID.map(String.init) ?? "")", "THROWBACK_SCHEDULE=\(schedule)",
            "THROWBACK_TIMEZONE=\(timeZoneName)", "POLL_TIMEOUT=\(pollTimeout)", "LOG_LEVEL=\(logLevel)",
            "LOG_FORMAT=\(logFormat.rawValue)", "RATE_LIMIT_USER=\(rateLimits.user.burst),\(rateLimits.user.perMinute)",
            "RATE_LIMIT_CHAT=\(rateLimits.chat.perMinute)", "HTTP_PORT=\(httpPort.map(String.init) ?? "off")", "HTTP_HOST=\(httpHost)",
            "REPLY_TTL=\(Int(replyTTL.seconds))s", "OUTBOX_LEASE=\(Int(outboxLease.seconds))s", "INLINE_COLLAGE_CHAT_ID=\(inlineCollageChatID.map(String.init) ?? "")",
            "LISTENBRAINZ_API_URL=\(listenBrainzAPIURL.absoluteString)", "LISTENBRAINZ_TOKEN=\(secret(listenBrainzToken))",
            "LIBREFM_API_URL=\(libreFMAPIURL.absoluteString)", "COVER_ART_ARCHIVE_URL=\(coverArtArchiveURL.absoluteString)",
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

    /// `telegram.bot.token` → `TELEGRAM_BOT_TOKEN`, the name the environment provider looks up.
    static func envName(_ key: String) -> String {
        key.replacingOccurrences(of: ".", with: "_").uppercased()
    }
}

extension RateLimitGuard.Rate {
    /// `RATE_LIMIT_USER`: "15,45" is a burst of 15 and 45 a minute; "20" is 20 of each.
    init?(userSetting text: String) {
        let numbers = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard (1...2).contains(numbers.count), numbers.allSatisfy({ $0.map { (1...1000).contains($0) } ?? false }) else { return nil }
        self.init(burst: numbers[0]!, perMinute: numbers.last!!)
    }
}
