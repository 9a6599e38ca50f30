import Foundation

extension BotStore {
    /// Messages waiting to be sent (enqueued before `enqueuedBefore`), oldest first, at most `limit`, but for those `known`
    /// already (read only by id, so that a scan decodes nothing this process holds) and those
    /// of chats another process holds the lane of; and when the first of those lanes' leases
    /// runs out, if any does.
    func pendingMessages(
        limit: Int, owner: String, at now: Date, enqueuedBefore: Date? = nil, except known: @escaping @Sendable (Int64) -> Bool
    ) async throws -> (messages: [OutboxMessage], heldElsewhereUntil: Date?) {
        try await read { session in
            let (owner, now) = (StoreValue.text(owner), StoreValue.date(now))
            // One row, its value NULL when no lane is held elsewhere.
            let heldElsewhere = (try session.value("""
                SELECT MIN(l.expiresAt) FROM outboxLane l
                WHERE l.owner != ? AND l.expiresAt > ? AND EXISTS (SELECT 1 FROM outbox o WHERE o.state = 'pending' AND o.chatID = l.chatID)
                """, [owner, now]) as Date??) ?? nil
            let ids = try (session.column("""
                SELECT id FROM outbox WHERE state = 'pending' AND createdAt <= ?
                AND chatID NOT IN (SELECT chatID FROM outboxLane WHERE owner != ? AND expiresAt > ?)
                ORDER BY id LIMIT ?
                """, [.date(enqueuedBefore ?? .distantFuture), owner, now, .integer(Int64(limit))]) as [Int64])
                .filter { !known($0) }
            return (try OutboxCoding.messages(ids, in: session), heldElsewhere)
        }
    }
}
