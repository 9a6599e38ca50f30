import Networking

/// Recently read chat settings, each kept for `lifetime`.
final class SettingsCache: Sendable {
    /// How stale a setting changed by another process may be.
    static let lifetime = Duration.seconds(60)

    private let entries = SharedBoundedCache<Int64, ChatSettings>(capacity: 1024)
    private let clock = ElapsedClock(ContinuousClock())

    /// Keeps settings read from the database, unless a write through this store has put
    /// newer ones here since the read began.
    func keep(_ settings: ChatSettings) {
        let now = clock.elapsed()
        entries.setIfAbsent(settings, forKey: settings.id, expiresAt: now + Self.lifetime, now: now)
    }

    subscript(chat: Int64) -> ChatSettings? {
        get { entries.value(forKey: chat, now: clock.elapsed()) }
        set {
            if let newValue {
                entries.set(newValue, forKey: chat, expiresAt: clock.elapsed() + Self.lifetime)
            } else {
                entries.removeValue(forKey: chat)
            }
        }
    }
}
