import Networking
import Synchronization

/// Recently read chat settings, each kept for `lifetime`, in the bot's one bounded cache type.
final class SettingsCache: Sendable {
    /// How stale a setting changed by another process may be.
    static let lifetime = Duration.seconds(60)

    private let entries = Mutex(BoundedCache<Int64, ChatSettings>(capacity: 1024))
    private let clock = ElapsedClock(ContinuousClock())

    subscript(chat: Int64) -> ChatSettings? {
        get { entries.withLock { $0.value(forKey: chat, now: clock.elapsed()) } }
        set {
            let expiry = clock.elapsed() + Self.lifetime
            entries.withLock { cache in
                if let newValue { cache.set(newValue, forKey: chat, expiresAt: expiry) } else { cache.removeValue(forKey: chat) }
            }
        }
    }
}
