import Synchronization

/// A `BoundedCache` behind a mutex, for caches that concurrent tasks share without an actor
/// hop (decoded Last.fm answers, chat settings, collage `file_id`s).
public final class SharedBoundedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    @usableFromInline let cache: Mutex<BoundedCache<Key, Value>>

    @inlinable
    public init(capacity: Int) {
        cache = Mutex(BoundedCache(capacity: capacity))
    }

    /// The value for `key`, unless it has expired by `now`.
    @inlinable
    public func value(forKey key: Key, now: Duration? = nil) -> Value? {
        cache.withLock { $0.value(forKey: key, now: now) }
    }

    @inlinable
    public func set(_ value: Value, forKey key: Key, expiresAt: Duration? = nil) {
        cache.withLock { $0.set(value, forKey: key, expiresAt: expiresAt) }
    }

    /// Stores `value` unless `key` has one that has not expired by `now`, which then stays:
    /// for a value read from storage, which must not replace a newer one set meanwhile.
    @inlinable
    public func setIfAbsent(_ value: Value, forKey key: Key, expiresAt: Duration? = nil, now: Duration? = nil) {
        cache.withLock { cache in
            if cache.value(forKey: key, now: now) == nil { cache.set(value, forKey: key, expiresAt: expiresAt) }
        }
    }

    @inlinable
    public func removeValue(forKey key: Key) {
        cache.withLock { $0.removeValue(forKey: key) }
    }
}
