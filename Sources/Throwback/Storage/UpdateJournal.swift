import Foundation
import GRDB
import Networking
import Telegram

/// Exactly-once handling of Telegram updates across restarts.
///
/// A batch is written to the inbox, together with the offset that confirms it, before the
/// poller confirms it to Telegram. An update leaves the inbox, and is remembered as handled,
/// in the transaction that commits its effects and enqueues its answer in the outbox
/// (`StoreTransaction.markHandled`). After a crash, the inbox is handled first; an update
/// that Telegram delivers again is recognised and skipped.
///
/// Updates are recognised by what they are (`Update.identity`: chat and message id, or the
/// button press's query id), never by `update_id`: Telegram restarts its numbering after a
/// quiet week, so an id may come back for a new update.
public struct UpdateJournal: Sendable {
    private let store: BotStore
    /// How long a handled update is remembered. Telegram keeps unconfirmed updates for a day,
    /// so no redelivery can come later than that.
    private let memory: TimeInterval
    private let now: @Sendable () -> Date

    public init(store: BotStore, memory: TimeInterval = 2 * 24 * 3600, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.memory = memory
        self.now = now
    }

    /// Where polling resumes.
    public func offset() async throws -> Int64? {
        try await store.read { db in
            try Int64.fetchOne(db, sql: "SELECT nextOffset FROM updateOffset WHERE id = 1")
        }
    }

    /// Stores a received batch and the offset that confirms it, in one transaction.
    ///
    /// The offset is stored as given, even when it is lower than the one before: that is what
    /// a renumbering looks like. Returns the updates to handle: those neither handled nor
    /// already in the inbox, in the order received.
    public func record(_ batch: [ReceivedUpdate], nextOffset: Int64) async throws -> [Update] {
        let rows = batch.compactMap { received -> (Update, InboxUpdate)? in
            guard let identity = received.update.identity else { return nil }
            // Kept as Telegram sent it: read back with the decoder that read it first.
            return (received.update, InboxUpdate(identity: identity, payload: Data(received.json)))
        }
        let forgetBefore = StoredDate(now().addingTimeInterval(-memory))
        return try await store.write { transaction in
            let db = transaction.db
            // Cached statements: this runs for every poll, the hot path of the bot.
            let handled = try db.cachedStatement(sql: "SELECT 1 FROM handledUpdate WHERE identity = ?")
            let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO inboxEntry (identity, payload) VALUES (?, ?)")
            var fresh: [Update] = []
            for (update, row) in rows {
                guard try Bool.fetchOne(handled, arguments: [row.identity]) != true else { continue }
                try insert.execute(arguments: [row.identity, row.payload])
                if db.changesCount > 0 { fresh.append(update) }
            }
            try db.cachedStatement(
                sql: "INSERT INTO updateOffset (id, nextOffset) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET nextOffset = excluded.nextOffset"
            ).execute(arguments: [nextOffset])
            try db.cachedStatement(sql: "DELETE FROM handledUpdate WHERE handledAt < ?").execute(arguments: [forgetBefore])
            return fresh
        }
    }

    /// Updates received before a stop and never handled, in the order received.
    public func unhandled() async throws -> [Update] {
        let payloads = try await store.read { db in
            try Data.fetchAll(db, sql: "SELECT payload FROM inboxEntry ORDER BY sequence")
        }
        let decoder = JSONTapeDecoder()
        return payloads.compactMap { try? decoder.decode(Update.self, from: $0) }
    }
}

extension StoreTransaction {
    /// Marks an update handled: out of the inbox, into the handled identities. Idempotent.
    public func markHandled(_ update: Update, at date: Date) throws {
        guard let identity = update.identity else { return }
        try db.cachedStatement(sql: "DELETE FROM inboxEntry WHERE identity = ?").execute(arguments: [identity])
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO handledUpdate (identity, handledAt) VALUES (?, ?)")
            .execute(arguments: [identity, StoredDate(date)])
    }
}
