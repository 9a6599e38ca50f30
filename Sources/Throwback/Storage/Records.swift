import Foundation
import GRDB

/// Per-chat settings. A chat without a row has the defaults.
public struct ChatSettings: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "chat"

    public var id: Int64
    /// Albums with fewer plays are hidden in this chat.
    public var minimumPlayCount: Int
    /// The weekly post, as an admin chose it: nil until someone does, which means on for
    /// `THROWBACK_CHAT_ID` and off everywhere else.
    public var weeklyPost: Bool?
    /// This chat's weekly post time, e.g. `fri 18:00`; nil uses `THROWBACK_SCHEDULE`.
    public var schedule: String?
    /// The IANA zone of `schedule`; nil uses `THROWBACK_TIMEZONE`.
    public var scheduleZone: String?
    /// The forum topic the weekly post goes to: where `weekly on` was sent.
    public var weeklyTopicID: Int64?
    /// False once Telegram answered 403 or said the bot was removed or blocked; true again
    /// once it says the bot is back.
    public var active: Bool
    /// Whether throwbacks come as a cover collage with the chart as its caption.
    public var covers: Bool
    /// Unix time of the last `weekly on` or schedule change: a post that fell due before it
    /// was never missed, so it is not caught up. Nil: unchanged since before that was kept.
    public var weeklySince: Int64?

    public init(
        id: Int64, minimumPlayCount: Int = 1, weeklyPost: Bool? = nil, schedule: String? = nil, scheduleZone: String? = nil,
        weeklyTopicID: Int64? = nil, active: Bool = true, covers: Bool = true, weeklySince: Int64? = nil
    ) {
        self.weeklySince = weeklySince
        self.id = id
        self.minimumPlayCount = minimumPlayCount
        self.weeklyPost = weeklyPost
        self.schedule = schedule
        self.scheduleZone = scheduleZone
        self.weeklyTopicID = weeklyTopicID
        self.active = active
        self.covers = covers
    }

    /// Read column by column rather than through `Decodable`: every throwback reads its
    /// chat's settings, and the generic decoder was the larger part of that read.
    public init(row: Row) throws {
        id = row["id"]
        minimumPlayCount = row["minimumPlayCount"]
        weeklyPost = row["weeklyPost"]
        schedule = row["schedule"]
        scheduleZone = row["scheduleZone"]
        weeklyTopicID = row["weeklyTopicID"]
        active = row["active"]
        covers = row["covers"]
        weeklySince = row["weeklySince"]
    }

    /// Whether the weekly post is on, given the chat that gets it by default.
    public func weeklyPostIsOn(defaultChat: Int64?) -> Bool {
        active && (weeklyPost ?? (id == defaultChat))
    }
}

/// A Last.fm user on a chat's roster, in Last.fm's spelling.
public struct RosterEntry: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord, StoresDates {
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

/// What identifies a throwback's collage: the same user, week and play-count filter always
/// give the same picture, so its Telegram `file_id` can be reused in any chat.
public struct CollageKey: Sendable, Hashable {
    /// The Last.fm name, lowercased.
    public var user: String
    /// The Unix time at which the Last.fm week starts.
    public var week: Int64
    public var minimumPlayCount: Int

    public init(user: String, week: Int64, minimumPlayCount: Int) {
        self.user = user.lowercased()
        self.week = week
        self.minimumPlayCount = minimumPlayCount
    }
}

/// A chat's weekly post for one Last.fm week: the claim that makes it go out once.
/// `generation` grows when a post is forced again. While open, the claim is held by the
/// process composing it until `leaseExpiresAt`; a lease that ran out (its process died) may
/// be taken over.
struct WeeklyPostClaim: Codable, Sendable, FetchableRecord, PersistableRecord, StoresDates {
    static let databaseTableName = "weeklyPost"

    var chatID: Int64
    /// The Unix time at which the Last.fm week starts.
    var week: Int64
    var generation: Int
    var claimedAt: Date
    /// The moment the post was due, which decides the weeks it shows.
    var dueAt: Date?
    /// When its messages were handed to the outbox.
    var completedAt: Date?
    /// The process composing it, for the log.
    var owner: String?
    var leaseExpiresAt: Date?
    /// Where to confirm a `postnow` sent from another chat, or to say why it failed.
    var replyChatID: Int64?
    var replyMessageID: Int64?
    var replyTopicID: Int64?
}
