import Foundation
import GRDB
import Telegram

/// Exactly-once handling of Telegram updates across restarts.
///
/// A batch is written to the inbox, together with the next offset, before the poller
/// confirms it to Telegram. An update leaves the inbox, and is remembered as processed,
/// when its answer is about to go out. After a crash, the inbox is handled first; polling
/// resumes at the stored offset, so an update Telegram delivers again is not handled twice.
public struct UpdateJournal: Sendable {
    private let store: BotStore
    /// How many processed ids to remember; redeliveries come from the last unconfirmed batch.
    private let memory: Int64

    public init(store: BotStore, memory: Int64 = 10_000) {
        self.store = store
        self.memory = memory
    }

    /// Where polling resumes.
    public func offset() async throws -> Int64? {
        try await store.database.read { db in
            try Int64.fetchOne(db, sql: "SELECT nextOffset FROM updateOffset WHERE id = 1")
        }
    }

    /// Stores a received batch (skipping processed updates) and the offset after it.
    public func record(_ batch: [Update]) async throws {
        guard let last = batch.map(\.updateID).max() else { return }
        let encoder = JSONEncoder()
        let rows = try batch.map { InboxUpdate(updateID: $0.updateID, payload: try encoder.encode($0)) }
        try await store.database.write { db in
            for row in rows where try ProcessedUpdate.fetchOne(db, key: row.updateID) == nil {
                try row.save(db)
            }
            try db.execute(
                sql: "INSERT INTO updateOffset (id, nextOffset) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET nextOffset = max(nextOffset, excluded.nextOffset)",
                arguments: [last + 1]
            )
        }
    }

    /// Updates received before a crash and never handled, oldest first.
    public func unhandled() async throws -> [Update] {
        let rows = try await store.database.read { db in try InboxUpdate.order(Column("updateID")).fetchAll(db) }
        let decoder = JSONDecoder()
        return rows.compactMap { try? decoder.decode(Update.self, from: $0.payload) }
    }

    public func isProcessed(_ updateID: Int64) async throws -> Bool {
        try await store.database.read { db in try ProcessedUpdate.fetchOne(db, key: updateID) != nil }
    }

    /// Undoes `markProcessed` for an update whose answer certainly never left, so that it is
    /// handled again after a restart. It writes synchronously, because it runs when the
    /// task is being cancelled and an async database access would refuse to start.
    public func reopen(_ update: Update) throws {
        let row = InboxUpdate(updateID: update.updateID, payload: try JSONEncoder().encode(update))
        try store.database.write { db in
            try ProcessedUpdate.deleteOne(db, key: update.updateID)
            try row.save(db)
        }
    }

    /// Marks an update handled: out of the inbox, into the processed ids.
    public func markProcessed(_ updateID: Int64) async throws {
        let memory = memory
        try await store.database.write { db in
            try InboxUpdate.deleteOne(db, key: updateID)
            try ProcessedUpdate(updateID: updateID, processedAt: Date()).save(db)
            try db.execute(sql: "DELETE FROM processedUpdate WHERE updateID < ?", arguments: [updateID - memory])
        }
    }
}
