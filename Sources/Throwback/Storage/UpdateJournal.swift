import Foundation
import Networking
import Telegram

/// Exactly-once handling of Telegram updates across restarts.
///
/// A batch is written to the journal, together with the offset that confirms it, before the
/// poller confirms it to Telegram. An update is marked handled (its payload cleared, the time
/// stamped) in the transaction that commits its effects and enqueues its answer in the
/// outbox (`StoreTransaction.markHandled`). After a crash, the updates not yet handled are
/// handled first; an update that Telegram delivers again is recognised and skipped.
///
/// Updates are recognised by what they are (`Update.identity`: chat and message id, or the
/// button press's query id), never by `update_id`: Telegram restarts its numbering after a
/// quiet week, so an id may come back for a new update.
///
/// Handled updates are forgotten by `StoragePruner`, once Telegram can no longer deliver them again.
public struct UpdateJournal: Sendable {
    let store: BotStore
    let now: @Sendable () -> Date

    public init(store: BotStore, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.now = now
    }

    /// Where polling resumes.
    public func offset() async throws -> Int64? {
        try await store.read { session in try session.value("SELECT nextOffset FROM updateOffset WHERE id = 1") }
    }

    /// Stores a received batch and the offset that confirms it, in one transaction.
    ///
    /// The offset is stored as given, even when it is lower than the one before: that is what
    /// a renumbering looks like. Returns the updates to handle: those neither handled nor
    /// already waiting in the journal, in the order received.
    public func record(_ batch: [ReceivedUpdate], nextOffset: Int64) async throws -> [Update] {
        let now = now()
        return try await store.write { transaction in
            let fresh = try Self.journal(batch, at: now, in: transaction.session)
            _ = try transaction.session.execute(
                "INSERT INTO updateOffset (id, nextOffset) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET nextOffset = excluded.nextOffset",
                [.integer(nextOffset)]
            )
            return fresh
        }
    }

    /// Journals the updates of `batch` that are neither handled nor already waiting, kept as
    /// Telegram sent them; returns those, in the order received. Kinds the bot does not
    /// handle (no identity) are left out.
    static func journal(_ batch: [ReceivedUpdate], at now: Date, in session: any StoreSession) throws -> [Update] {
        // One statement per update: a known identity, handled or waiting, is not inserted again.
        let received = StoreValue.date(now)
        return try batch.compactMap { update in
            guard let identity = update.update.identity else { return nil }
            let inserted = try session.execute(
                "INSERT INTO journalEntry (identity, payload, receivedAt, chatID) VALUES (?, ?, ?, ?) ON CONFLICT (identity) DO NOTHING",
                [.text(identity), .blob(Data(update.json)), received, .integer(update.update.laneChat)]
            )
            return inserted > 0 ? update.update : nil
        }
    }

    /// Updates received before a stop and never handled, in the order received.
    public func unhandled() async throws -> [Update] {
        let payloads: [Data] = try await store.read { session in
            try session.column("SELECT payload FROM journalEntry WHERE payload IS NOT NULL ORDER BY sequence")
        }
        // Read as a polled update is read: each payload is an update as Telegram sent it.
        return payloads.compactMap { try? Update(json: JSONNode(parsing: Array($0))) }
    }
}

extension StoreTransaction {
    /// Marks an update handled: its payload cleared, the time it was handled kept.
    ///
    /// - Throws: `UpdateJournal.HandledElsewhere` if it was handled already, by another
    ///   replica that took its chat over: the transaction is then rolled back, and nothing
    ///   it would have changed or sent happens twice.
    public func markHandled(_ update: Update, at date: Date) throws {
        guard let identity = update.identity else { return }
        // Nearly every update was journaled when it arrived: an update finds its row without
        // an insert being tried first.
        let (handled, key) = (StoreValue.date(date), StoreValue.text(identity))
        guard try session.execute("UPDATE journalEntry SET payload = NULL, handledAt = ? WHERE identity = ? AND handledAt IS NULL", [handled, key]) == 0
        else { return }
        guard try session.execute(
            "INSERT INTO journalEntry (identity, payload, handledAt) VALUES (?, NULL, ?) ON CONFLICT (identity) DO NOTHING", [key, handled]
        ) > 0
        else { throw UpdateJournal.HandledElsewhere(identity: identity) }
    }
}

extension UpdateJournal {
    /// The update was handled already, by another replica.
    public struct HandledElsewhere: Error, CustomStringConvertible {
        public let identity: String
        public var description: String { "update \(identity) was handled already, by another replica" }
    }
}

extension Update {
    /// The lane an update is handled in, one at a time and in order: its chat's, or for an
    /// inline query or a press without a message, its sender's, as the dispatcher queues them.
    var laneChat: Int64 {
        chatID ?? callbackQuery?.from.id ?? inlineQuery?.from.id ?? chosenInlineResult?.from.id ?? 0
    }
}
