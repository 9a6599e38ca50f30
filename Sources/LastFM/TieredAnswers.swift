import Foundation
import Networking

/// Answers kept in two tiers: decoded, in a bounded memory cache, so that a warm call decodes
/// nothing and waits on nothing; encoded, in a store (SQLite in the bot), which keeps them
/// across restarts. A look-up that misses memory is shared: callers that ask for the same key
/// while it runs wait for it, so two chats asking for the same cold week cost one request.
/// What a key's answer is, is the caller's to keep consistent: one key, one type of answer.
public struct TieredAnswers: Sendable {
    /// Where an answer came from.
    public enum Tier: String, Sendable {
        case memory, store, miss
    }

    private let store: any LastFMCacheStore
    private let memory: SharedBoundedCache<String, any AnyObject & Sendable>
    private let misses = SharedRequests<String, any Sendable>()

    /// - Parameter memoryCapacity: decoded answers kept in memory, least recently used first out.
    public init(store: any LastFMCacheStore, memoryCapacity: Int) {
        self.store = store
        self.memory = SharedBoundedCache(capacity: memoryCapacity)
    }

    /// The answer for `key` unless it has expired by `now`: from memory, else from the store,
    /// else from `fetch`, and then kept in both tiers until `expiresAt` (nil: for good).
    /// `found` hears where each answer came from, once per look-up, not per caller.
    public func value<Value: Codable & Sendable>(
        forKey key: String, now: Date, expiresAt: Date?, found: @escaping @Sendable (Tier) -> Void = { _ in },
        fetch: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        if let hit: Value = memoryValue(forKey: key, now: now) {
            found(.memory)
            return hit
        }
        return try await shared(key) { [store, memory] in
            if let data = await store.value(forKey: key, now: now), let stored = try? JSONDecoder().decode(Value.self, from: data) {
                memory.set(Kept(stored), forKey: key, expiresAt: expiresAt)
                found(.store)
                return stored
            }
            found(.miss)
            let value = try await fetch()
            memory.set(Kept(value), forKey: key, expiresAt: expiresAt)
            if let data = try? JSONEncoder().encode(value) {
                await store.store(data, forKey: key, expiresAt: expiresAt)
            }
            return value
        }
    }

    /// The decoded answer for `key` in memory, unless it has expired by `now`: what `value`
    /// looks at first, for a caller that can skip building its fetch when it is there.
    public func memoryValue<Value: Sendable>(forKey key: String, now: Date) -> Value? {
        (memory.value(forKey: key, now: now) as? Kept<Value>)?.value
    }

    /// `work`'s answer, shared with the callers that ask for `key` while it runs; kept nowhere.
    public func shared<Value: Sendable>(_ key: String, _ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let answer = try await misses.value(for: key) { try await work() }
        // One key, one type of answer; should a caller break that, it still gets its own.
        guard let value = answer as? Value else { return try await work() }
        return value
    }

    /// Callers waiting for a look-up in flight, for tests.
    public var callersWaiting: Int { misses.callers }
}

/// A decoded answer as memory keeps it: boxed in its type, so that a look-up finds it by a
/// class check, not by the runtime's general cast out of `any Sendable`.
private final class Kept<Value: Sendable>: Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
