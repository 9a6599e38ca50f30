import Foundation

/// Which process sends each chat's messages: a row of `outboxLane` per chat, its holder and
/// when its lease runs out. Two processes on one database (the bot and `post-weekly`) would
/// otherwise each send the same chat's messages, each under its own flood limit: out of
/// order, and into Telegram's 429s. A lease that runs out frees the chat of a process that
/// died; one that holds it renews it while it sends.
extension StoreTransaction {
    /// Takes the lanes of `chats` for `owner` until `until`, or renews them: all but those
    /// another process holds whose leases have not run out. Returns the chats `owner` holds now.
    func takeLanes(_ chats: Set<Int64>, owner: String, until: Date, at now: Date) throws -> Set<Int64> {
        let (owner, until, now) = (StoreValue.text(owner), StoreValue.date(until), StoreValue.date(now))
        var held: Set<Int64> = []
        // In order, so that two processes taking lanes at once lock their rows in one order.
        for batch in StoreBatches.cut(chats.sorted()) {
            let rows = try session.rows(
                Self.takeLanes[batch.count]!, batch.flatMap { [.integer($0), owner, until] } + [now]
            )
            for row in rows { held.insert(try row.get(0)) }
        }
        return held
    }

    /// Moves the end of `owner`'s lease of `chat` to `until`; false if it is no longer theirs.
    func renewLane(_ chat: Int64, owner: String, until: Date) throws -> Bool {
        try session.execute("UPDATE outboxLane SET expiresAt = ? WHERE chatID = ? AND owner = ?", [.date(until), .integer(chat), .text(owner)]) > 0
    }

    /// Gives up `owner`'s lanes of `chats`: another process may send there at once.
    func releaseLanes(_ chats: some Collection<Int64>, owner: String) throws {
        for batch in StoreBatches.cut(chats.sorted()) {
            _ = try session.execute(Self.releaseLanes[batch.count]!, [.text(owner)] + batch.map { .integer($0) })
        }
    }

    // A row goes in, or takes over a row whose holder is this owner or whose lease ran out;
    // only the rows that went in or changed come back.
    private static let takeLanes = StoreBatches.statements { count in """
        INSERT INTO outboxLane (chatID, owner, expiresAt) VALUES \(StoreBatches.list(count, of: "(?, ?, ?)"))
        ON CONFLICT (chatID) DO UPDATE SET owner = excluded.owner, expiresAt = excluded.expiresAt
        WHERE outboxLane.owner = excluded.owner OR outboxLane.expiresAt <= ?
        RETURNING chatID
        """
    }

    private static let releaseLanes = StoreBatches.statements { count in
        "DELETE FROM outboxLane WHERE owner = ? AND chatID IN (\(StoreBatches.list(count)))"
    }
}

extension BotStore {
    /// Messages waiting to be sent, oldest first, at most `limit`, but for those `known`
    /// already (read only by id, so that a scan decodes nothing this process holds) and those
    /// of chats another process holds the lane of; and when the first of those lanes' leases
    /// runs out, if any does.
    func pendingMessages(
        limit: Int, owner: String, at now: Date, except known: @escaping @Sendable (Int64) -> Bool
    ) async throws -> (messages: [OutboxMessage], heldElsewhereUntil: Date?) {
        try await read { session in
            let (owner, now) = (StoreValue.text(owner), StoreValue.date(now))
            // One row, its value NULL when no lane is held elsewhere.
            let heldElsewhere = (try session.value("""
                SELECT MIN(l.expiresAt) FROM outboxLane l
                WHERE l.owner != ? AND l.expiresAt > ? AND EXISTS (SELECT 1 FROM outbox o WHERE o.state = 'pending' AND o.chatID = l.chatID)
                """, [owner, now]) as Date??) ?? nil
            let ids = try (session.column("""
                SELECT id FROM outbox WHERE state = 'pending'
                AND chatID NOT IN (SELECT chatID FROM outboxLane WHERE owner != ? AND expiresAt > ?)
                ORDER BY id LIMIT ?
                """, [owner, now, .integer(Int64(limit))]) as [Int64])
                .filter { !known($0) }
            return (try OutboxCoding.messages(ids, in: session), heldElsewhere)
        }
    }
}
