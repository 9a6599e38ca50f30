import Foundation

/// A chat's weekly post for one week, claimed by this process.
public struct WeeklyPostProgress: Sendable, Equatable {
    public var chatID: Int64
    /// The Unix time at which the Last.fm week starts.
    public var week: Int64
    public var generation: Int
    /// The moment the post was due, which decides the weeks it shows.
    public var dueAt: Date
    /// Where a `postnow` was sent from, to confirm it or say why it failed.
    public var reply: ReplyTarget?
}

/// A message to answer later: where it was sent, and its id, to quote it.
public struct ReplyTarget: Sendable, Equatable {
    public var chatID: Int64
    public var messageID: Int64?
    public var topicID: Int64?

    public init(chatID: Int64, messageID: Int64?, topicID: Int64?) {
        self.chatID = chatID
        self.messageID = messageID
        self.topicID = topicID
    }
}

/// The answer to a claim on a chat's weekly post.
public enum WeeklyClaim: Sendable, Equatable {
    case claimed(WeeklyPostProgress)
    /// This week's post has gone out (to the outbox) already.
    case alreadyPosted
    /// A process is composing it now; its lease runs until then.
    case heldElsewhere(until: Date)
}

extension StoreTransaction {
    /// Claims a chat's weekly post for `week`, with one conditional write, before anything is
    /// composed: a new claim; a completed one again with `force` (a new generation); or an
    /// open one whose lease has run out (its process stopped), to finish it.
    ///
    /// - Parameters:
    ///   - lease: how long the claim is this process's; `renewLease` extends it.
    ///   - reply: where to answer once the post went out or failed (`postnow`).
    public func claimWeeklyPost(
        chat: Int64, week: Int64, dueAt: Date, force: Bool, owner: String, lease: Duration, reply: ReplyTarget? = nil, now: Date
    ) throws -> WeeklyClaim {
        let until = now.addingTimeInterval(lease.seconds)
        if var claim = try WeeklyPostClaim.stored(chat: chat, week: week, in: session) {
            if claim.completedAt != nil {
                guard force else { return .alreadyPosted }
                claim.generation += 1
                claim.claimedAt = now
                claim.dueAt = dueAt
                claim.completedAt = nil
                (claim.replyChatID, claim.replyMessageID, claim.replyTopicID) = (reply?.chatID, reply?.messageID, reply?.topicID)
            } else if let held = claim.leaseExpiresAt, held > now {
                return .heldElsewhere(until: held)
            } else if let reply {
                (claim.replyChatID, claim.replyMessageID, claim.replyTopicID) = (reply.chatID, reply.messageID, reply.topicID)
            }
            claim.owner = owner
            claim.leaseExpiresAt = until
            _ = try session.execute("""
                UPDATE weeklyPost SET generation = ?, claimedAt = ?, dueAt = ?, completedAt = ?, owner = ?, leaseExpiresAt = ?,
                replyChatID = ?, replyMessageID = ?, replyTopicID = ? WHERE chatID = ? AND week = ?
                """, Array(claim.arguments.dropFirst(2)) + [.integer(chat), .integer(week)])
            return .claimed(claim.progress)
        }
        let claim = WeeklyPostClaim(
            chatID: chat, week: week, generation: 1, claimedAt: now, dueAt: dueAt, completedAt: nil, owner: owner, leaseExpiresAt: until,
            replyChatID: reply?.chatID, replyMessageID: reply?.messageID, replyTopicID: reply?.topicID
        )
        _ = try session.execute(
            "INSERT INTO weeklyPost (\(WeeklyPostClaim.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", claim.arguments
        )
        return .claimed(claim.progress)
    }

    /// Keeps a claim this process holds for `lease` more. False when it is no longer ours.
    public func renewLease(_ progress: WeeklyPostProgress, owner: String, lease: Duration, now: Date) throws -> Bool {
        try session.execute(
            "UPDATE weeklyPost SET leaseExpiresAt = ? WHERE \(WeeklyPostClaim.held)", [.date(now.addingTimeInterval(lease.seconds))] + progress.held(by: owner)
        ) > 0
    }

    /// Marks the post done, in the transaction that hands its messages to the outbox. False
    /// when the claim is no longer this process's (its lease ran out and another took it).
    public func completeWeeklyPost(_ progress: WeeklyPostProgress, owner: String, at date: Date) throws -> Bool {
        try session.execute(
            "UPDATE weeklyPost SET completedAt = ?, leaseExpiresAt = NULL WHERE \(WeeklyPostClaim.held)", [.date(date)] + progress.held(by: owner)
        ) > 0
    }

    /// Gives up a claim under which nothing was enqueued. With `retry`, the post stays open
    /// for the scheduler to try again (its lease ends now); without, a first claim is
    /// forgotten and a forced repeat falls back to "already posted".
    public func releaseWeeklyPost(_ progress: WeeklyPostProgress, owner: String, retry: Bool, at date: Date) throws {
        let (mine, arguments) = (WeeklyPostClaim.held, progress.held(by: owner))
        if retry {
            _ = try session.execute("UPDATE weeklyPost SET leaseExpiresAt = NULL WHERE \(mine)", arguments)
        } else if progress.generation == 1 {
            _ = try session.execute("DELETE FROM weeklyPost WHERE \(mine)", arguments)
        } else {
            _ = try session.execute("UPDATE weeklyPost SET completedAt = ?, leaseExpiresAt = NULL WHERE \(mine)", [.date(date)] + arguments)
        }
    }
}

extension BotStore {
    /// Whether `chat`'s post for `week` has gone out.
    public func weeklyPostIsComplete(chat: Int64, week: Int64) async throws -> Bool {
        try await read { session in try WeeklyPostClaim.stored(chat: chat, week: week, in: session)?.completedAt != nil }
    }

    /// Posts claimed and never completed, for weeks that began at or after `since`: a process
    /// stopped while composing them. With the moment each may be taken over.
    public func openWeeklyPosts(since week: Int64) async throws -> [(progress: WeeklyPostProgress, freeAt: Date)] {
        try await read { session in
            try session.rows("SELECT \(WeeklyPostClaim.columns) FROM weeklyPost WHERE completedAt IS NULL AND week >= ?", [.integer(week)])
                .map(WeeklyPostClaim.init).map { ($0.progress, $0.leaseExpiresAt ?? .distantPast) }
        }
    }
}

extension WeeklyPostProgress {
    /// The arguments of `WeeklyPostClaim.held`.
    func held(by owner: String) -> [StoreValue] {
        [.integer(chatID), .integer(week), .integer(Int64(generation)), .text(owner)]
    }
}

extension WeeklyPostClaim {
    /// Every column, in the order `init(row:)` and `arguments` take them.
    static let columns = """
        chatID, week, generation, claimedAt, dueAt, completedAt, owner, leaseExpiresAt, replyChatID, replyMessageID, replyTopicID
        """
    /// A claim still open and held by an owner (`WeeklyPostProgress.held(by:)`).
    static let held = "chatID = ? AND week = ? AND generation = ? AND owner = ? AND completedAt IS NULL"

    static func stored(chat: Int64, week: Int64, in session: any StoreSession) throws -> WeeklyPostClaim? {
        try session.rows("SELECT \(columns) FROM weeklyPost WHERE chatID = ? AND week = ?", [.integer(chat), .integer(week)])
            .first.map(WeeklyPostClaim.init)
    }

    init(row: StoreRow) throws {
        self.init(
            chatID: try row.get(0), week: try row.get(1), generation: try row.get(2), claimedAt: try row.get(3), dueAt: try row.get(4),
            completedAt: try row.get(5), owner: try row.get(6), leaseExpiresAt: try row.get(7), replyChatID: try row.get(8),
            replyMessageID: try row.get(9), replyTopicID: try row.get(10)
        )
    }

    var arguments: [StoreValue] {
        [
            .integer(chatID), .integer(week), .integer(Int64(generation)), .date(claimedAt), StoreValue(dueAt), StoreValue(completedAt),
            StoreValue(owner), StoreValue(leaseExpiresAt), StoreValue(replyChatID), StoreValue(replyMessageID), StoreValue(replyTopicID),
        ]
    }

    var progress: WeeklyPostProgress {
        WeeklyPostProgress(
            chatID: chatID, week: week, generation: generation, dueAt: dueAt ?? claimedAt,
            reply: replyChatID.map { ReplyTarget(chatID: $0, messageID: replyMessageID, topicID: replyTopicID) }
        )
    }
}
