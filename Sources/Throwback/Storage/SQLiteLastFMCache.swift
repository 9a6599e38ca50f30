import Foundation
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
        let answer = try? await store.read { session -> (value: Data, expiresAt: Date?)? in
            try session.rows("SELECT value, expiresAt FROM lastfmCache WHERE key = ?", [.text(key)]).first.map {
                (try $0.get(0), try $0.get(1))
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
            try transaction.session.execute("""
                INSERT INTO lastfmCache (key, value, expiresAt, usedAt) VALUES (?, ?, ?, ?)
                ON CONFLICT (key) DO UPDATE SET value = excluded.value, expiresAt = excluded.expiresAt, usedAt = excluded.usedAt
                """, [.text(key), .blob(value), StoreValue(expiresAt), .date(usedAt)])
        }
    }
}
