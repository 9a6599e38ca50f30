import Foundation
import Telegram

extension UpdateJournal {
    /// An update waiting in the journal, with its chat's lane.
    struct Waiting: Sendable {
        let chat: Int64
        let identity: String
        let payload: Data
    }

    /// Updates not yet handled, oldest first, at most `limit`, but for those of chats another
    /// replica holds the lane of.
    func waiting(owner: String, at now: Date, limit: Int) async throws -> [Waiting] {
        try await store.read { session in
            try session.rows("""
                SELECT coalesce(j.chatID, 0), j.identity, j.payload FROM journalEntry j
                WHERE j.payload IS NOT NULL AND NOT EXISTS (
                    SELECT 1 FROM journalLane l WHERE l.chatID = coalesce(j.chatID, 0) AND l.owner <> ? AND l.expiresAt > ?)
                ORDER BY j.sequence LIMIT ?
                """, [.text(owner), .date(now), .integer(Int64(limit))]
            ).map { Waiting(chat: try $0.get(0), identity: try $0.get(1), payload: try $0.get(2)) }
        }
    }

    /// Marks updates handled without handling them: they no longer read as updates.
    func discard(_ identities: [String], at now: Date) async throws {
        try await store.write { transaction in
            for identity in identities {
                _ = try transaction.session.execute(
                    "UPDATE journalEntry SET payload = NULL, handledAt = ? WHERE identity = ?", [.date(now), .text(identity)]
                )
            }
        }
    }
}
