import Foundation
import GRDB
import Telegram

extension UpdateJournal {
    /// Stores one update that Telegram posted to the webhook, synced to disk before this
    /// returns: Telegram takes the answer that follows as the update's confirmation. There is
    /// no offset to keep. Returns the update to handle, or nil when it is known already
    /// (handled or waiting: Telegram delivered it again) or of a kind the bot does not handle.
    public func record(delivered received: ReceivedUpdate) async throws -> Update? {
        guard let identity = received.update.identity else { return nil }
        let (payload, now) = (received.json, now())
        let inserted = try await store.write(synced: true) { transaction in
            try transaction.db.cachedStatement(sql: "INSERT OR IGNORE INTO journalEntry (identity, payload, receivedAt) VALUES (?, ?, ?)")
                .execute(arguments: [identity, Data(payload), StoredDate(now)])
            return transaction.db.changesCount > 0
        }
        return inserted ? received.update : nil
    }
}
