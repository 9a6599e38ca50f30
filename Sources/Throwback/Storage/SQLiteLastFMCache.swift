import Foundation
import GRDB
import LastFM

/// The Last.fm cache port backed by SQLite, so past weeks stay cached across restarts.
public struct SQLiteLastFMCache: LastFMCacheStore {
    private let store: BotStore

    public init(store: BotStore) {
        self.store = store
    }

    public func value(forKey key: String, now: Date) async -> Data? {
        let answer = try? await store.database.read { db in try CachedAnswer.fetchOne(db, key: key) }
        guard let answer else { return nil }
        if let expiry = answer.expiresAt, expiry <= now { return nil }
        return answer.value
    }

    public func store(_ value: Data, forKey key: String, expiresAt: Date?) async {
        _ = try? await store.database.write { db in
            try CachedAnswer(key: key, value: value, expiresAt: expiresAt).save(db)
        }
    }
}
