import Foundation
import Networking

/// Where cached Last.fm answers live. The in-memory store below is the default;
/// a persistent store plugs in through the same port.
public protocol LastFMCacheStore: Sendable {
    /// The stored answer for `key`, unless it has expired by `now`.
    func value(forKey key: String, now: Date) async -> Data?
    /// Stores an answer; `expiresAt == nil` keeps it forever.
    func store(_ value: Data, forKey key: String, expiresAt: Date?) async
}

/// A process-lifetime store of encoded answers, bounded like every cache of the bot; for
/// tools and tests that keep nothing across runs.
public final class InMemoryLastFMCache: LastFMCacheStore {
    private let entries: SharedBoundedCache<String, Data>

    public init(capacity: Int = 1024) {
        entries = SharedBoundedCache(capacity: capacity)
    }

    public func value(forKey key: String, now: Date) -> Data? {
        entries.value(forKey: key, now: now)
    }

    public func store(_ value: Data, forKey key: String, expiresAt: Date?) {
        entries.set(value, forKey: key, expiresAt: expiresAt)
    }
}

/// Answers calls from a cache where the call's policy allows it, and fills the cache from
/// the wrapped client otherwise. Errors are never cached.
///
/// Two tiers: decoded answers in a bounded in-memory cache, so that a warm call decodes
/// nothing and waits on nothing; behind it the store (SQLite in the bot), which keeps answers
/// across restarts. A miss is shared: callers that miss the same answer at the same moment
/// wait for one look-up, so two chats asking for the same cold week cost one request.
public struct CachedLastFMClient: LastFMClient {
    private let base: any LastFMClient
    private let store: any LastFMCacheStore
    private let memory: DecodedAnswers
    private let misses = SharedRequests<String, any Sendable>()
    private let now: @Sendable () -> Date
    private let metrics: BotMetrics

    /// - Parameter memoryCapacity: decoded answers kept in memory, least recently used first out.
    public init(
        base: any LastFMClient, store: any LastFMCacheStore, memoryCapacity: Int = 1024, now: @escaping @Sendable () -> Date = Date.init,
        metrics: BotMetrics = .none
    ) {
        self.base = base
        self.store = store
        self.memory = DecodedAnswers(capacity: memoryCapacity)
        self.now = now
        self.metrics = metrics
    }

    public func send<Response>(_ call: LastFMCall<Response>) async throws -> Response {
        let now = now()
        guard let expiry = Self.expiry(of: call.cachePolicy, now: now) else {
            return try await base.send(call)
        }
        let key = call.cacheKey
        if let hit = memory.value(forKey: key, now: now) as? Response {
            count("memory")
            return hit
        }
        let shared = try await misses.value(for: key) { [self] in try await fill(call, key: key, now: now, expiry: expiry) }
        // A key names one method, and a method one type of answer.
        guard let value = shared as? Response else { return try await base.send(call) }
        return value
    }

    /// The answer from the store, or else from the wrapped client; kept in both tiers.
    private func fill<Response>(_ call: LastFMCall<Response>, key: String, now: Date, expiry: Expiry) async throws -> Response {
        if let data = await store.value(forKey: key, now: now), let cached = try? JSONDecoder().decode(Response.self, from: data) {
            memory.set(cached, forKey: key, expiresAt: expiry.date)
            count("store")
            return cached
        }
        count("miss")
        let value = try await base.send(call)
        memory.set(value, forKey: key, expiresAt: expiry.date)
        if let data = try? JSONEncoder().encode(value) {
            await store.store(data, forKey: key, expiresAt: expiry.date)
        }
        return value
    }

    /// Callers waiting for a look-up in flight, for tests.
    public var callersWaiting: Int { misses.callers }

    /// `vinylogue_lastfm_cache_total`: a hit in memory, a hit in the store, or a miss.
    private func count(_ result: String) {
        metrics.increment("vinylogue_lastfm_cache_total", [("result", result)])
    }

    /// `nil` when the answer must not be cached; `.some(nil)` when it can be kept forever.
    static func expiry(of policy: LastFMCachePolicy, now: Date) -> Expiry? {
        switch policy {
        case .none: nil
        case .untilNextWeek: Expiry(date: LastFMWeek.nextBoundary(after: now))
        case .chartWeek(let end): Expiry(date: end <= now ? nil : end)
        case .duration(let duration): Expiry(date: now.addingTimeInterval(duration.seconds))
        case .forever: Expiry(date: nil)
        }
    }

    struct Expiry {
        var date: Date?
    }
}

/// The in-memory tier: decoded answers with their expiry, shared by concurrent throwbacks
/// without an actor hop.
typealias DecodedAnswers = SharedBoundedCache<String, any Sendable>

extension SharedBoundedCache {
    /// Expiry on the wall clock, for answers whose lifetime is a date (a chart week's end).
    public func value(forKey key: Key, now date: Date) -> Value? {
        value(forKey: key, now: .seconds(date.timeIntervalSince1970))
    }

    public func set(_ value: Value, forKey key: Key, expiresAt date: Date?) {
        set(value, forKey: key, expiresAt: date.map { .seconds($0.timeIntervalSince1970) })
    }
}

extension LastFMClient {
    /// Serves repeat calls from `store`: past weeks forever, the chart list until the next week.
    public func cached(
        in store: any LastFMCacheStore = InMemoryLastFMCache(),
        now: @escaping @Sendable () -> Date = Date.init,
        metrics: BotMetrics = .none
    ) -> CachedLastFMClient {
        CachedLastFMClient(base: self, store: store, now: now, metrics: metrics)
    }
}
