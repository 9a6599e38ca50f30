import Configuration
import Foundation
import Logging
import Networking

// Loading: the environment and `.env` read, every key checked, and what was odd reported.
extension BotConfiguration {
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
        databaseURL = try text("database.url").map(Self.databaseURL(_:))
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
        webhookURL = try text("telegram.webhook.url").map(Self.webhookURL(_:))
        webhookSecret = try text("telegram.webhook.secret").map(Self.webhookSecret(_:))
        let connections = try integer("telegram.webhook.max.connections") ?? 40
        guard (1...100).contains(connections) else {
            throw ConfigurationError.invalid(key: "TELEGRAM_WEBHOOK_MAX_CONNECTIONS", value: "\(connections)", expected: "a number between 1 and 100")
        }
        webhookMaxConnections = Int(connections)
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
