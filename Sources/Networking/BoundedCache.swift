/// A cache with a fixed number of entries: when full, the least recently used entry goes.
/// Entries may also carry an expiry, measured on an `ElapsedClock`'s time line.
///
/// This is the one cache type behind every in-memory cache of the bot (guards' answers,
/// rate-limit and flood-limit state, decoded Last.fm answers), so that a bot in thousands
/// of chats keeps a bounded footprint. It is a value type: its owner (an actor, or a value
/// behind a mutex) provides the isolation. Every operation is O(1), and inlinable, so that
/// each cache is compiled for its own key and value types rather than looking them up at
/// run time on every access.
public struct BoundedCache<Key: Hashable, Value> {
    @usableFromInline
    struct Node {
        @usableFromInline var key: Key
        @usableFromInline var value: Value
        @usableFromInline var expiresAt: Duration?
        @usableFromInline var newer: Int
        @usableFromInline var older: Int

        @usableFromInline
        init(key: Key, value: Value, expiresAt: Duration?, newer: Int, older: Int) {
            (self.key, self.value, self.expiresAt, self.newer, self.older) = (key, value, expiresAt, newer, older)
        }
    }

    /// The most entries kept.
    public let capacity: Int
    @usableFromInline var index: [Key: Int] = [:]
    @usableFromInline var nodes: [Node] = []
    @usableFromInline var free: [Int] = []
    /// The most and least recently used nodes; -1 when empty.
    @usableFromInline var newest = -1
    @usableFromInline var oldest = -1

    @inlinable
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    @inlinable
    public var count: Int { index.count }

    /// The value for `key`, unless it has expired by `now`; a hit makes it the most recent.
    @inlinable
    public mutating func value(forKey key: Key, now: Duration? = nil) -> Value? {
        guard let slot = index[key] else { return nil }
        if let expiry = nodes[slot].expiresAt, let now, expiry <= now {
            remove(slot)
            return nil
        }
        touch(slot)
        return nodes[slot].value
    }

    /// Stores `value`, evicting the least recently used entry when full.
    ///
    /// - Parameter expiresAt: when the entry stops being served; nil keeps it until evicted.
    @inlinable
    public mutating func set(_ value: Value, forKey key: Key, expiresAt: Duration? = nil) {
        if let slot = index[key] {
            nodes[slot].value = value
            nodes[slot].expiresAt = expiresAt
            touch(slot)
            return
        }
        if index.count >= capacity, oldest >= 0 { remove(oldest) }
        let node = Node(key: key, value: value, expiresAt: expiresAt, newer: -1, older: newest)
        let slot: Int
        if let reused = free.popLast() {
            nodes[reused] = node
            slot = reused
        } else {
            nodes.append(node)
            slot = nodes.count - 1
        }
        if newest >= 0 { nodes[newest].newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
        index[key] = slot
    }

    /// Changes the value in place, if present, without touching its recency or expiry.
    @inlinable
    public mutating func modify<T>(_ key: Key, _ body: (inout Value) -> T) -> T? {
        guard let slot = index[key] else { return nil }
        return body(&nodes[slot].value)
    }

    @inlinable
    public mutating func removeValue(forKey key: Key) {
        if let slot = index[key] { remove(slot) }
    }

    @inlinable
    mutating func touch(_ slot: Int) {
        guard slot != newest else { return }
        unlink(slot)
        nodes[slot].older = newest
        nodes[slot].newer = -1
        if newest >= 0 { nodes[newest].newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
    }

    @inlinable
    mutating func unlink(_ slot: Int) {
        let (newer, older) = (nodes[slot].newer, nodes[slot].older)
        if newer >= 0 { nodes[newer].older = older } else { newest = older }
        if older >= 0 { nodes[older].newer = newer } else { oldest = newer }
    }

    @inlinable
    mutating func remove(_ slot: Int) {
        unlink(slot)
        index[nodes[slot].key] = nil
        free.append(slot)
    }
}

extension BoundedCache: Sendable where Key: Sendable, Value: Sendable {}

extension BoundedCache.Node: Sendable where Key: Sendable, Value: Sendable {}
