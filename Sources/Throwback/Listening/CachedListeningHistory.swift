import Foundation
import LastFM

/// Keeps what a built source (ListenBrainz, Libre.fm) costs many requests to learn: a past
/// week's chart for good, the list of weeks until the next week begins. It uses the same store
/// as Last.fm's answers (SQLite in the bot), under keys namespaced by source. Errors and the
/// current week are never kept.
public struct CachedListeningHistory: ListeningHistory {
    private let base: any ListeningHistory
    private let namespace: String
    private let store: any LastFMCacheStore
    private let now: @Sendable () -> Date

    /// - Parameter namespace: the source's name in cache keys, e.g. `listenbrainz`.
    public init(base: any ListeningHistory, namespace: String, store: any LastFMCacheStore, now: @escaping @Sendable () -> Date = Date.init) {
        self.base = base
        self.namespace = namespace
        self.store = store
        self.now = now
    }

    public func account(_ name: String) async throws -> String {
        // The guard that checks names keeps its own answers.
        try await base.account(name)
    }

    public func weeks(of user: String) async throws -> [WeeklyChartRange] {
        let now = now()
        return try await cached(key: "\(namespace)|weeks|\(user.lowercased())", now: now, expiresAt: LastFMWeek.nextBoundary(after: now)) {
            try await base.weeks(of: user)
        }
    }

    public func albumChart(of user: String, in range: WeeklyChartRange) async throws -> WeeklyAlbumChart {
        let now = now()
        let key = "\(namespace)|week|\(user.lowercased())|\(range.fromUnix)|\(range.toUnix)"
        // A week still running changes with every play: only a finished one is kept.
        guard range.to <= now else { return try await base.albumChart(of: user, in: range) }
        return try await cached(key: key, now: now, expiresAt: nil) { try await base.albumChart(of: user, in: range) }
    }

    private func cached<Value: Codable & Sendable>(
        key: String, now: Date, expiresAt: Date?, _ fetch: () async throws -> Value
    ) async throws -> Value {
        if let data = await store.value(forKey: key, now: now), let value = try? JSONDecoder().decode(Value.self, from: data) {
            return value
        }
        let value = try await fetch()
        if let data = try? JSONEncoder().encode(value) {
            await store.store(data, forKey: key, expiresAt: expiresAt)
        }
        return value
    }
}
