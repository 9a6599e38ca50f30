import Synchronization

/// A `BoundedCache` behind a mutex, for caches that concurrent tasks share without an actor
/// hop (decoded Last.fm answers, chat settings, collage `file_id`s).
public final class SharedBoundedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let cache: Mutex<BoundedCache<Key, Value>>

    public init(capacity: Int) {
        cache = Mutex(BoundedCache(capacity: capacity))
    }

    /// The value for `key`, unless it has expired by `now`.
    public func value(forKey key: Key, now: Duration? = nil) -> Value? {
        cache.withLock { $0.value(forKey: key, now: now) }
    }

    public func set(_ value: Value, forKey key: Key, expiresAt: Duration? = nil) {
        cache.withLock { $0.set(value, forKey: key, expiresAt: expiresAt) }
    }

    public func removeValue(forKey key: Key) {
        cache.withLock { $0.removeValue(forKey: key) }
    }
}
