import Synchronization

/// Cached rows read since the last pruning, which marks them used (`StoragePruner`): a row's
/// lifetime counts from its last use, and a read that wrote would take the write lock on
/// the warm path. Bounded: a key beyond `capacity` is not noted, and its row keeps the
/// moment it was last marked, so at worst it is fetched or uploaded again sooner.
final class RecentUse: Sendable {
    private struct Used: Sendable {
        var answers: Set<String> = []
        var collages: Set<CollageKey> = []
    }

    let capacity: Int
    private let used = Mutex(Used())

    init(capacity: Int = 10_000) {
        self.capacity = capacity
    }

    /// A Last.fm (or other listening source's) answer read from the database.
    func noteAnswer(_ key: String) {
        used.withLock { used in
            if used.answers.count < capacity { used.answers.insert(key) }
        }
    }

    /// A collage sent again by its stored `file_id`.
    func noteCollage(_ key: CollageKey) {
        used.withLock { used in
            if used.collages.count < capacity { used.collages.insert(key) }
        }
    }

    /// What was noted since the last call, and forgets it.
    func take() -> (answers: Set<String>, collages: Set<CollageKey>) {
        used.withLock { used in
            defer { used = Used() }
            return (used.answers, used.collages)
        }
    }
}
