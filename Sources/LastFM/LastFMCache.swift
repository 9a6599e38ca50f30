import Foundation

/// Where cached Last.fm answers live. The in-memory store below is the default;
/// a persistent store plugs in through the same port.
public protocol LastFMCacheStore: Sendable {
    /// The stored answer for `key`, unless it has expired by `now`.
    func value(forKey key: String, now: Date) async -> Data?
    /// Stores an answer; `expiresAt == nil` keeps it forever.
    func store(_ value: Data, forKey key: String, expiresAt: Date?) async
}

/// A process-lifetime cache.
public actor InMemoryLastFMCache: LastFMCacheStore {
    private var entries: [String: (value: Data, expiresAt: Date?)] = [:]

    public init() {}

    public func value(forKey key: String, now: Date) -> Data? {
        guard let entry = entries[key] else { return nil }
        if let expiry = entry.expiresAt, expiry <= now {
            entries[key] = nil
            return nil
        }
        return entry.value
    }

    public func store(_ value: Data, forKey key: String, expiresAt: Date?) {
        entries[key] = (value, expiresAt)
    }
}

/// Answers calls from a cache store where the call's policy allows it, and fills the store
/// from the wrapped client otherwise. Errors are never cached here.
public struct CachedLastFMClient: LastFMClient {
    private let base: any LastFMClient
    private let store: any LastFMCacheStore
    private let now: @Sendable () -> Date

    public init(base: any LastFMClient, store: any LastFMCacheStore, now: @escaping @Sendable () -> Date = Date.init) {
        self.base = base
        self.store = store
        self.now = now
    }

    public func send<Response>(_ call: LastFMCall<Response>) async throws -> Response {
        let now = now()
        guard let expiry = Self.expiry(of: call.cachePolicy, now: now) else {
            return try await base.send(call)
        }
        let key = call.cacheKey
        if let data = await store.value(forKey: key, now: now),
           let cached = try? JSONDecoder().decode(Response.self, from: data) {
            return cached
        }
        let value = try await base.send(call)
        if let data = try? JSONEncoder().encode(value) {
            await store.store(data, forKey: key, expiresAt: expiry.date)
        }
        return value
    }

    /// `nil` when the answer must not be cached; `.some(nil)` when it can be kept forever.
    static func expiry(of policy: LastFMCachePolicy, now: Date) -> Expiry? {
        switch policy {
        case .none: nil
        case .untilNextWeek: Expiry(date: LastFMWeek.nextBoundary(after: now))
        case .chartWeek(let end): Expiry(date: end <= now ? nil : end)
        case .duration(let duration): Expiry(date: now.addingTimeInterval(duration.seconds))
        }
    }

    struct Expiry {
        var date: Date?
    }
}

extension LastFMClient {
    /// Serves repeat calls from `store`: past weeks forever, the chart list until the next week.
    public func cached(
        in store: any LastFMCacheStore = InMemoryLastFMCache(),
        now: @escaping @Sendable () -> Date = Date.init
    ) -> CachedLastFMClient {
        CachedLastFMClient(base: self, store: store, now: now)
    }
}
