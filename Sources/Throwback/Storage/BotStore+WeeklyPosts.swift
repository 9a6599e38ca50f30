import Foundation
import GRDB

/// Where a chat's weekly post for one week stands, once claimed.
public struct WeeklyPostProgress: Sendable, Equatable {
    public var chatID: Int64
    /// The Unix time at which the Last.fm week starts.
    public var week: Int64
    public var generation: Int
    /// Roster keys of users already posted, or possibly posted (a message that was going out
    /// when the process stopped counts: once beats twice).
    public var postedUsers: Set<String>
    /// Messages recorded so far in this generation.
    public var messageCount: Int
}

extension BotStore {
    /// Claims a chat's weekly post for `week`, with one conditional write, before anything is
    /// sent. Returns nil when that week's post already went out (and `force` is off). A claim
    /// left incomplete by an earlier run is resumed: the progress says who was posted.
    public func claimWeeklyPost(chat: Int64, week: Int64, force: Bool, now: Date) async throws -> WeeklyPostProgress? {
        try await database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO weeklyPost (chatID, week, generation, claimedAt) VALUES (?, ?, 1, ?)
                    ON CONFLICT(chatID, week) DO UPDATE SET generation = generation + 1, claimedAt = excluded.claimedAt, completedAt = NULL
                    WHERE completedAt IS NOT NULL AND ?
                    """,
                arguments: [chat, week, StoredDate(now), force]
            )
            guard let claim = try WeeklyPostClaim.fetchOne(db, key: ["chatID": chat, "week": week]), claim.completedAt == nil else {
                return nil
            }
            let messages = try WeeklyPostMessage
                .filter(Column("chatID") == chat && Column("week") == week && Column("generation") == claim.generation)
                .fetchAll(db)
            let posted = messages.flatMap { $0.users.split(separator: "\n").map(String.init) }
            return WeeklyPostProgress(chatID: chat, week: week, generation: claim.generation, postedUsers: Set(posted), messageCount: messages.count)
        }
    }

    /// Records a message as going out, with the users it carries, before it is sent.
    public func recordWeeklyMessage(_ progress: WeeklyPostProgress, sequence: Int, users: [String]) async throws {
        try await database.write { db in
            try WeeklyPostMessage(
                chatID: progress.chatID, week: progress.week, generation: progress.generation, sequence: sequence,
                users: users.joined(separator: "\n"), messageID: nil, sentAt: nil
            ).insert(db)
        }
    }

    /// Records the id Telegram gave a message of the post.
    public func recordWeeklyMessageSent(_ progress: WeeklyPostProgress, sequence: Int, messageID: Int64, at date: Date) async throws {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE weeklyPostMessage SET messageID = ?, sentAt = ? WHERE chatID = ? AND week = ? AND generation = ? AND sequence = ?",
                arguments: [messageID, StoredDate(date), progress.chatID, progress.week, progress.generation, sequence]
            )
        }
    }

    /// Forgets a message that certainly never left, so that its users are posted on resume.
    public func forgetWeeklyMessage(_ progress: WeeklyPostProgress, sequence: Int) throws {
        try database.write { db in
            try db.execute(
                sql: "DELETE FROM weeklyPostMessage WHERE chatID = ? AND week = ? AND generation = ? AND sequence = ?",
                arguments: [progress.chatID, progress.week, progress.generation, sequence]
            )
        }
    }

    /// Marks the post done: the week's post has gone out.
    public func completeWeeklyPost(_ progress: WeeklyPostProgress, at date: Date) async throws {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE weeklyPost SET completedAt = ? WHERE chatID = ? AND week = ? AND generation = ?",
                arguments: [StoredDate(date), progress.chatID, progress.week, progress.generation]
            )
        }
    }

    /// Gives up a claim under which nothing was sent, so that the post is tried again later.
    /// A forced repeat falls back to "already posted".
    public func releaseWeeklyPost(_ progress: WeeklyPostProgress, at date: Date) async throws {
        try await database.write { db in
            if progress.generation == 1 {
                try db.execute(sql: "DELETE FROM weeklyPost WHERE chatID = ? AND week = ?", arguments: [progress.chatID, progress.week])
            } else {
                try db.execute(
                    sql: "UPDATE weeklyPost SET completedAt = ? WHERE chatID = ? AND week = ? AND generation = ?",
                    arguments: [StoredDate(date), progress.chatID, progress.week, progress.generation]
                )
            }
        }
    }

    /// Whether `chat`'s post for `week` has gone out.
    public func weeklyPostIsComplete(chat: Int64, week: Int64) async throws -> Bool {
        try await database.read { db in
            try WeeklyPostClaim.fetchOne(db, key: ["chatID": chat, "week": week])?.completedAt != nil
        }
    }
}
