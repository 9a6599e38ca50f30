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
    public var databasePath: String
    public var adminUserIDs: [Int64]
    public var throwbackChatID: Int64?
    public var schedule: WeeklySchedule
    public var timeZone: TimeZone
    public var pollTimeout: Int
    public var logLevel: Logger.Level
    /// Commands per Telegram user (a burst and a rate) and per chat (`RATE_LIMIT_USER`, `RATE_LIMIT_CHAT`).
    public var rateLimits: RateLimitGuard.Limits

    /// Every key at its default; `run` still needs a token and a key.
    public init(
        telegramToken: Secret? = nil, telegramAPIURL: URL = URL(string: "https://api.telegram.org")!,
        lastFMAPIKey: Secret? = nil, lastFMAPIURL: URL = URL(string: "https://ws.audioscrobbler.com/2.0/")!,
        databasePath: String = "vinylogue.sqlite", adminUserIDs: [Int64] = [], throwbackChatID: Int64? = nil,
        schedule: WeeklySchedule = WeeklySchedule("mon 09:00")!, timeZone: TimeZone = TimeZone(identifier: "UTC")!,
        pollTimeout: Int = 50, logLevel: Logger.Level = .info, rateLimits: RateLimitGuard.Limits = .init()
    ) {
        self.telegramToken = telegramToken
        self.telegramAPIURL = telegramAPIURL
        self.lastFMAPIKey = lastFMAPIKey
        self.lastFMAPIURL = lastFMAPIURL
        self.databasePath = databasePath
        self.adminUserIDs = adminUserIDs
        self.throwbackChatID = throwbackChatID
        self.schedule = schedule
        self.timeZone = timeZone
        self.pollTimeout = pollTimeout
        self.logLevel = logLevel
        self.rateLimits = rateLimits
    }

    /// The keys whose values are secret.
    public static let secretKeys: Set<String> = ["TELEGRAM_BOT_TOKEN", "LASTFM_API_KEY"]

    /// Reads the environment, then `.env` in the working directory if it exists.
    public static func load() async throws -> BotConfiguration {
        let secrets = SecretsSpecifier<String, String>.specific(secretKeys)
        let reader = ConfigReader(providers: [
            EnvironmentVariablesProvider(secretsSpecifier: secrets),
            try await EnvironmentVariablesProvider(
                environmentFilePath: ".env", allowMissing: true, secretsSpecifier: secrets
            ),
        ])
        return try BotConfiguration(reader: reader)
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
        databasePath = text("database.path") ?? "vinylogue.sqlite"
        adminUserIDs = try (text("admin.user.ids") ?? "").split(separator: ",").map {
            let id = $0.trimmingCharacters(in: .whitespaces)
            guard let value = Int64(id) else {
                throw ConfigurationError.invalid(key: "ADMIN_USER_IDS", value: id, expected: "comma-separated Telegram user ids")
            }
            return value
        }
        throwbackChatID = try integer("throwback.chat.id")
        let scheduleText = text("throwback.schedule") ?? "mon 09:00"
        guard let schedule = WeeklySchedule(scheduleText) else {
            throw ConfigurationError.invalid(key: "THROWBACK_SCHEDULE", value: scheduleText, expected: "a weekday and time such as “mon 09:00”")
        }
        self.schedule = schedule
        let zoneName = text("throwback.timezone") ?? "UTC"
        guard let zone = TimeZone(identifier: zoneName) else {
            throw ConfigurationError.invalid(key: "THROWBACK_TIMEZONE", value: zoneName, expected: "an IANA time zone such as Europe/Berlin")
        }
        timeZone = zone
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
    }

    /// The Last.fm key, or an error that says how to set it.
    public func requireLastFMKey() throws -> Secret {
        guard let key = lastFMAPIKey else {
            throw ConfigurationError.missing(
                key: "LASTFM_API_KEY",
                hint: "get one at https://www.last.fm/api/account/create, or try `vinylogue-bot console --demo`"
            )
        }
        return key
    }

    /// The bot token, or an error that says how to set it.
    public func requireTelegramToken() throws -> Secret {
        guard let token = telegramToken else {
            throw ConfigurationError.missing(key: "TELEGRAM_BOT_TOKEN", hint: "create a bot with @BotFather and paste its token")
        }
        return token
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

/// A configuration value that is missing or malformed. Its description is one line for the operator.
public enum ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    case missing(key: String, hint: String)
    case invalid(key: String, value: String, expected: String)

    public var description: String {
        switch self {
        case let .missing(key, hint):
            "\(key) is not set: set it in the environment or in .env (see .env.example); \(hint)."
        case let .invalid(key, value, expected):
            "\(key)=“\(value)” is not valid: expected \(expected)."
        }
    }
}
