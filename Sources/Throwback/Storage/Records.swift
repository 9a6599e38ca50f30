import Foundation
import GRDB

/// Per-chat settings. A chat without a row has the defaults.
public struct ChatSettings: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "chat"

    public var id: Int64
    /// Albums with fewer plays are hidden in this chat.
    public var minimumPlayCount: Int
    public var weeklyEnabled: Bool
    /// This chat's weekly post time, e.g. `fri 18:00`; nil uses `THROWBACK_SCHEDULE`.
    public var schedule: String?
    /// False once Telegram answered 403 (bot blocked or removed).
    public var active: Bool

    public init(id: Int64, minimumPlayCount: Int = 1, weeklyEnabled: Bool = true, schedule: String? = nil, active: Bool = true) {
        self.id = id
        self.minimumPlayCount = minimumPlayCount
        self.weeklyEnabled = weeklyEnabled
        self.schedule = schedule
        self.active = active
    }
}

/// A Last.fm user on a chat's roster, in Last.fm's spelling.
public struct RosterEntry: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "rosterEntry"

    public var chatID: Int64
    /// Lowercased name: the key, since Last.fm names are case-insensitive.
    public var nameKey: String
    public var lastFMName: String
    public var addedAt: Date

    public init(chatID: Int64, lastFMName: String, addedAt: Date = Date()) {
        self.chatID = chatID
        self.nameKey = lastFMName.lowercased()
        self.lastFMName = lastFMName
        self.addedAt = addedAt
    }
}

/// A Telegram account linked to a Last.fm name.
public struct AccountLink: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "accountLink"

    public var telegramUserID: Int64
    public var lastFMName: String

    public init(telegramUserID: Int64, lastFMName: String) {
        self.telegramUserID = telegramUserID
        self.lastFMName = lastFMName
    }
}

/// An update received from Telegram and not yet handled: the inbox survives a crash.
/// `identity` is `Update.identity`; the table also numbers rows in arrival order.
struct InboxUpdate: Sendable {
    var identity: String
    var payload: Data
}

/// A cached Last.fm answer.
struct CachedAnswer: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "lastfmCache"

    var key: String
    var value: Data
    /// Nil means forever (a past week's chart).
    var expiresAt: Date?
}
