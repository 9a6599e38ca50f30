import Foundation
import Networking
import WeeklyCharts

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
/// Two tiers (`TieredAnswers`): decoded answers in memory, encoded ones in the store (SQLite
/// in the bot), which keeps them across restarts; a miss is shared by the callers that ask
/// for the same answer meanwhile.
public struct CachedLastFMClient: LastFMClient {
    private let base: any LastFMClient
    private let answers: TieredAnswers
    private let now: @Sendable () -> Date
    private let metrics: BotMetrics

    /// - Parameter memoryCapacity: decoded answers kept in memory, least recently used first out.
    public init(
        base: any LastFMClient, store: any LastFMCacheStore, memoryCapacity: Int = 1024, now: @escaping @Sendable () -> Date = Date.init,
        metrics: BotMetrics = .none
    ) {
        self.base = base
        self.answers = TieredAnswers(store: store, memoryCapacity: memoryCapacity)
        self.now = now
        self.metrics = metrics
    }

    public func send<Response>(_ call: LastFMCall<Response>) async throws -> Response {
        let now = now()
        guard let expiry = Self.expiry(of: call.cachePolicy, now: now) else {
            return try await base.send(call)
        }
        let key = call.cacheKey
        // A warm answer, as most are, without the closures a look-up that misses needs.
        if let hit: Response = answers.memoryValue(forKey: key, now: now) {
            countFound(.memory)
            return hit
        }
        return try await answers.value(forKey: key, now: now, expiresAt: expiry.date, found: countFound) { [base] in try await base.send(call) }
    }

    @Sendable private func countFound(_ tier: TieredAnswers.Tier) {
        metrics.increment("vinylogue_lastfm_cache_total", [("result", tier.rawValue)])
    }

    /// Callers waiting for a look-up in flight, for tests.
    public var callersWaiting: Int { answers.callersWaiting }

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
