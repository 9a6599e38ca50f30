import Foundation
import LastFM
import Networking

/// Keeps what a built source (ListenBrainz, Libre.fm) costs many requests to learn: a past
/// week's chart for good, the list of weeks until the next week begins. Decoded answers stay
/// in a bounded memory tier, so that a warm throwback decodes nothing and waits on nothing;
/// behind it is the same store as Last.fm's answers (SQLite in the bot), under keys namespaced
/// by source. Errors and the current week are never kept.
///
/// A miss is shared: callers that ask for the same cold week at the same moment wait for one
/// chain of requests, and so do callers checking the same name.
public struct CachedListeningHistory: ListeningHistory {
    private let base: any ListeningHistory
    private let namespace: String
    private let store: any LastFMCacheStore
    private let memory: SharedBoundedCache<String, any Sendable>
    private let misses = SharedRequests<String, any Sendable>()
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - namespace: the source's name in cache keys, e.g. `listenbrainz`.
    ///   - memoryCapacity: decoded answers kept in memory, least recently used first out.
    public init(
        base: any ListeningHistory, namespace: String, store: any LastFMCacheStore, memoryCapacity: Int = 256,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.base = base
        self.namespace = namespace
        self.store = store
        self.memory = SharedBoundedCache(capacity: memoryCapacity)
        self.now = now
    }

    /// Callers waiting for a look-up in flight, for tests.
    public var callersWaiting: Int { misses.callers }

    public func account(_ name: String) async throws -> String {
        // Not kept: the guard that checks names keeps its own answers.
        try await shared("\(namespace)|account|\(name.lowercased())") { try await base.account(name) }
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
        guard range.to <= now else { return try await shared(key) { try await base.albumChart(of: user, in: range) } }
        return try await cached(key: key, now: now, expiresAt: nil) { try await base.albumChart(of: user, in: range) }
    }

    private func cached<Value: Codable & Sendable>(
        key: String, now: Date, expiresAt: Date?, _ fetch: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        if let hit = memory.value(forKey: key, now: now) as? Value { return hit }
        return try await shared(key) { [store, memory] in
            if let data = await store.value(forKey: key, now: now), let value = try? JSONDecoder().decode(Value.self, from: data) {
                memory.set(value, forKey: key, expiresAt: expiresAt)
                return value
            }
            let value = try await fetch()
            memory.set(value, forKey: key, expiresAt: expiresAt)
            if let data = try? JSONEncoder().encode(value) {
                await store.store(data, forKey: key, expiresAt: expiresAt)
            }
            return value
        }
    }

    /// `work`'s answer, shared with the callers that ask for `key` while it runs.
    private func shared<Value: Sendable>(_ key: String, _ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let answer = try await misses.value(for: key) { try await work() }
        // A key names one question, and a question one type of answer.
        guard let value = answer as? Value else { return try await work() }
        return value
    }
}
