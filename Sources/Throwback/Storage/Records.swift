import Foundation

/// Per-chat settings. A chat without a row has the defaults.
public struct ChatSettings: Sendable, Equatable {
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
    /// The language code its admins chose with `language` (`es`, `pt-BR`); nil until they
    /// do: a group then speaks English, a private chat its person's Telegram language.
    public var language: String?

    public init(
        id: Int64, minimumPlayCount: Int = 1, weeklyPost: Bool? = nil, schedule: String? = nil, scheduleZone: String? = nil,
        weeklyTopicID: Int64? = nil, active: Bool = true, covers: Bool = true, weeklySince: Int64? = nil, language: String? = nil
    ) {
        self.language = language
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

    /// The columns of a `chat` row, in the order `init(row:)` and `arguments` take them.
    static let columns = "id, minimumPlayCount, weeklyPost, schedule, scheduleZone, weeklyTopicID, active, covers, weeklySince, language"
    static let select = "SELECT \(columns) FROM chat"
    static let selectOne = "\(select) WHERE id = ?"
    /// Writes a chat's row whether or not it has one.
    static let save = """
        INSERT INTO chat (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET
        minimumPlayCount = excluded.minimumPlayCount, weeklyPost = excluded.weeklyPost, schedule = excluded.schedule,
        scheduleZone = excluded.scheduleZone, weeklyTopicID = excluded.weeklyTopicID, active = excluded.active,
        covers = excluded.covers, weeklySince = excluded.weeklySince, language = excluded.language
        """

    /// Read by position: every throwback reads its chat's settings.
    init(row: StoreRow) throws {
        id = try row.get(0)
        minimumPlayCount = try row.get(1)
        weeklyPost = try row.get(2)
        schedule = try row.get(3)
        scheduleZone = try row.get(4)
        weeklyTopicID = try row.get(5)
        active = try row.get(6)
        covers = try row.get(7)
        weeklySince = try row.get(8)
        language = try row.get(9)
    }

    var arguments: [StoreValue] {
        [
            .integer(id), .integer(Int64(minimumPlayCount)), StoreValue(weeklyPost), StoreValue(schedule), StoreValue(scheduleZone),
            StoreValue(weeklyTopicID), .boolean(active), .boolean(covers), StoreValue(weeklySince), StoreValue(language),
        ]
    }

    /// The language its admins chose, if they did (and the bot still speaks it).
    public var chosenLanguage: Language? {
        language.flatMap { Language(rawValue: $0) ?? Language(code: $0) }
    }

    /// Whether the weekly post is on, given the chat that gets it by default.
    public func weeklyPostIsOn(defaultChat: Int64?) -> Bool {
        active && (weeklyPost ?? (id == defaultChat))
    }
}

/// A Last.fm user on a chat's roster, in Last.fm's spelling.
public struct RosterEntry: Sendable, Equatable {
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

    /// The columns `init(row:)` reads, in its order.
    static let columns = "chatID, nameKey, lastFMName, addedAt"

    init(row: StoreRow) throws {
        chatID = try row.get(0)
        nameKey = try row.get(1)
        lastFMName = try row.get(2)
        addedAt = try row.get(3)
    }
}

/// A Telegram account linked to a Last.fm name.
public struct AccountLink: Sendable, Equatable {
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
struct WeeklyPostClaim: Sendable {
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
