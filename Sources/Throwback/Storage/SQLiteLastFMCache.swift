import Foundation
import GRDB
import LastFM

/// The Last.fm cache port backed by SQLite, so past weeks stay cached across restarts. Each
/// answer keeps when it was last written or read, so that `StoragePruner` can hold the
/// cache to `LISTENING_CACHE_MB` by dropping the answers unused longest.
public struct SQLiteLastFMCache: LastFMCacheStore {
    private let store: BotStore
    private let now: @Sendable () -> Date

    public init(store: BotStore, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.now = now
    }

    public func value(forKey key: String, now: Date) async -> Data? {
        let answer = try? await store.read { db -> (value: Data, expiresAt: Date?)? in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT value, expiresAt FROM lastfmCache WHERE key = ?"), arguments: [key]).map {
                ($0["value"], ($0["expiresAt"] as StoredDate?)?.date)
            }
        }
        guard let answer = answer ?? nil else { return nil }
        if let expiry = answer.expiresAt, expiry <= now { return nil }
        store.recentUse.noteAnswer(key)
        return answer.value
    }

    public func store(_ value: Data, forKey key: String, expiresAt: Date?) async {
        let usedAt = now()
        // Not synced: a cached answer lost to a power cut is only asked for again.
        _ = try? await store.write(synced: false) { transaction in
            // An upsert, never a REPLACE: the cache's size is kept by triggers on insert,
            // update and delete, and a REPLACE deletes without firing them.
            try transaction.db.cachedStatement(sql: """
                INSERT INTO lastfmCache (key, value, expiresAt, usedAt) VALUES (?, ?, ?, ?)
                ON CONFLICT(key) DO UPDATE SET value = excluded.value, expiresAt = excluded.expiresAt, usedAt = excluded.usedAt
                """).execute(arguments: [key, value, expiresAt.map(StoredDate.init), StoredDate(usedAt)])
        }
    }
}
