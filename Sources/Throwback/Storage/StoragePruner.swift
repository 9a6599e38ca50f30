import Foundation
import Logging
import Networking

/// Keeps every table of the store within a bound, on one schedule (the outbox's hourly tick).
/// Each table's rows go once nothing can need them any more, or, for the listening cache,
/// once it outgrows `LISTENING_CACHE_MB`, the answers unused longest first: a cache row
/// dropped is fetched again when asked for, never answered wrongly.
///
/// Rows go in batches of `batch`, each its own short write: the bot's replies wait for the
/// same write lock.
public struct StoragePruner: Sendable {
    /// How long each kind of row is kept.
    public struct Lifetimes: Sendable {
        /// Sent, unconfirmed and dropped messages, after they were settled.
        public var finishedMessages: Duration
        /// The most finished messages kept, however recent.
        public var finishedMessageCount: Int
        /// Album info (where a cover is), since it was last used.
        public var albumInfo: Duration
        /// The names behind button data, since a message with the button was last sent or
        /// edited. A message can be pressed as long as it exists; a year keeps every button
        /// anyone still presses in practice, and a press after it only gets no answer.
        public var buttonNames: Duration
        /// Uploaded collages' `file_id`s, since last used; a forgotten one is uploaded again.
        public var collagePhotos: Duration
        /// Handled updates. Telegram delivers an update again for a day at most.
        public var handledUpdates: Duration
        /// Updates never handled since they arrived: one this version can read is handled at
        /// once, or at the next start (before the first pruning); the rest never will be.
        public var unhandledUpdates: Duration
        /// Weekly posts' claims, after their week began: only the current week's are claimed.
        public var weeklyPosts: Duration

        public init(
            finishedMessages: Duration = .seconds(7 * 86_400), finishedMessageCount: Int = 50_000,
            albumInfo: Duration = .seconds(90 * 86_400), buttonNames: Duration = .seconds(365 * 86_400),
            collagePhotos: Duration = .seconds(90 * 86_400), handledUpdates: Duration = .seconds(2 * 86_400),
            unhandledUpdates: Duration = .seconds(7 * 86_400), weeklyPosts: Duration = .seconds(8 * 7 * 86_400)
        ) {
            self.finishedMessages = finishedMessages
            self.finishedMessageCount = finishedMessageCount
            self.albumInfo = albumInfo
            self.buttonNames = buttonNames
            self.collagePhotos = collagePhotos
            self.handledUpdates = handledUpdates
            self.unhandledUpdates = unhandledUpdates
            self.weeklyPosts = weeklyPosts
        }
    }

    private let store: BotStore
    private let lifetimes: Lifetimes
    private let listeningCacheBytes: Int
    private let batch: Int
    private let now: @Sendable () -> Date
    private let logger: Logger

    /// - Parameter listeningCacheBytes: `LISTENING_CACHE_MB`: the most bytes of answers the
    ///   listening cache keeps.
    public init(
        store: BotStore, lifetimes: Lifetimes = Lifetimes(), listeningCacheBytes: Int, batch: Int = 500,
        now: @escaping @Sendable () -> Date, logger: Logger
    ) {
        self.store = store
        self.lifetimes = lifetimes
        self.listeningCacheBytes = listeningCacheBytes
        self.batch = max(1, batch)
        self.now = now
        self.logger = logger
    }

    /// One pass over every table; returns how many rows went from each, by table.
    @discardableResult
    public func prune() async throws -> [String: Int] {
        let now = now()
        func before(_ lifetime: Duration) -> StoreValue { .date(now.addingTimeInterval(-lifetime.seconds)) }
        try await markUsed(at: now)
        var pruned: [String: Int] = [:]
        let (lifetimes, limit) = (lifetimes, batch)
        pruned["outbox"] = try await repeatedly { transaction in
            try transaction.pruneOutbox(
                doneBefore: now.addingTimeInterval(-lifetimes.finishedMessages.seconds), keeping: lifetimes.finishedMessageCount, limit: limit
            )
        }
        // Expired answers; album info unused for its lifetime, found by an index of album info
        // alone (the query repeats the index's condition word for word, for SQLite to choose
        // it), so that a pass never reads the charts kept for good; then what is unused
        // longest, beyond the cap.
        pruned["lastfmCache"] = try await deleting(
            "DELETE FROM lastfmCache WHERE key IN (SELECT key FROM lastfmCache WHERE expiresAt <= ? LIMIT ?)", [.date(now)]
        ) + deleting("""
            DELETE FROM lastfmCache WHERE key IN (
                SELECT key FROM lastfmCache WHERE substr(key, 1, 14) = 'album.getinfo|' AND usedAt < ? LIMIT ?)
            """, [before(lifetimes.albumInfo)]) + evictBeyondCap()
        pruned["buttonName"] = try await deleting(
            "DELETE FROM buttonName WHERE key IN (SELECT key FROM buttonName WHERE usedAt < ? LIMIT ?)", [before(lifetimes.buttonNames)]
        )
        pruned["collagePhoto"] = try await deleting(
            #"DELETE FROM collagePhoto WHERE ("user", week, minimumPlayCount) IN (SELECT "user", week, minimumPlayCount FROM collagePhoto WHERE usedAt < ? LIMIT ?)"#,
            [before(lifetimes.collagePhotos)]
        )
        pruned["journalEntry"] = try await deleting("""
            DELETE FROM journalEntry WHERE sequence IN (
                SELECT sequence FROM journalEntry WHERE handledAt < ? OR (handledAt IS NULL AND receivedAt < ?) LIMIT ?)
            """, [before(lifetimes.handledUpdates), before(lifetimes.unhandledUpdates)])
        pruned["weeklyPost"] = try await deleting(
            "DELETE FROM weeklyPost WHERE (chatID, week) IN (SELECT chatID, week FROM weeklyPost WHERE week < ? LIMIT ?)",
            [.integer(Int64(now.timeIntervalSince1970 - lifetimes.weeklyPosts.seconds))]
        )
        // A lane whose lease ran out long ago is any process's to take: its row says nothing.
        for table in [LaneTable.outbox, .journal] {
            pruned[table.rawValue] = try await deleting(
                "DELETE FROM \(table.rawValue) WHERE chatID IN (SELECT chatID FROM \(table.rawValue) WHERE expiresAt < ? LIMIT ?)",
                [before(.seconds(3600))]
            )
        }
        pruned = pruned.filter { $0.value > 0 }
        if !pruned.isEmpty {
            let rows = pruned.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            logger.info("old rows pruned", metadata: ["rows": "\(rows)"])
        }
        return pruned
    }

    /// Marks the cached rows read since the last pass as used now.
    private func markUsed(at now: Date) async throws {
        let (answers, collages) = store.recentUse.take()
        for chunk in Array(answers).chunks(of: batch) {
            try await store.write(synced: false) { transaction in
                for key in chunk { _ = try transaction.session.execute("UPDATE lastfmCache SET usedAt = ? WHERE key = ?", [.date(now), .text(key)]) }
            }
        }
        for chunk in Array(collages).chunks(of: batch) {
            try await store.write(synced: false) { transaction in
                for key in chunk {
                    _ = try transaction.session.execute("UPDATE collagePhoto SET usedAt = ? WHERE \(CollageKey.condition)", [.date(now)] + key.arguments)
                }
            }
        }
    }

    /// Drops the listening cache's answers unused longest until what is left fits the cap.
    private func evictBeyondCap() async throws -> Int {
        let (cap, limit) = (listeningCacheBytes, batch)
        return try await repeatedly { transaction in
            let session = transaction.session
            let bytes: Int = try session.value("SELECT bytes FROM lastfmCacheSize") ?? 0
            guard bytes > cap else { return 0 }
            // An answer's size as the cache counts it: its key's bytes, and its value's (a
            // blob's length is its bytes in either engine; a text's is its characters).
            let oldest = try session.rows("SELECT key, length(value) FROM lastfmCache ORDER BY usedAt LIMIT ?", [.integer(Int64(limit))])
            var (keys, freed) = ([String](), 0)
            for row in oldest where freed < bytes - cap {
                let key: String = try row.get(0)
                keys.append(key)
                freed += try key.utf8.count + row.get(1) as Int
            }
            for key in keys { _ = try session.execute("DELETE FROM lastfmCache WHERE key = ?", [.text(key)]) }
            // A full batch may leave more to evict; fewer means what is left fits.
            return keys.count
        }
    }

    /// Runs `sql`, a DELETE of at most a batch of rows (its last argument, added here), until
    /// it deletes fewer; returns how many it deleted in all.
    private func deleting(_ sql: String, _ arguments: [StoreValue]) async throws -> Int {
        let limit = batch
        return try await repeatedly { transaction in try transaction.session.execute(sql, arguments + [.integer(Int64(limit))]) }
    }

    /// Runs `step`, each time in a write of its own, until it changes fewer than a batch of
    /// rows; returns how many it changed in all.
    private func repeatedly(_ step: @escaping @Sendable (StoreTransaction) throws -> Int) async throws -> Int {
        var total = 0
        while true {
            let changed = try await store.write(synced: false, step)
            total += changed
            if changed < batch { return total }
        }
    }
}

extension Array {
    /// The array in consecutive pieces of at most `size` elements.
    fileprivate func chunks(of size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
