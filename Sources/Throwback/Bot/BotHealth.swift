import Networking
import Synchronization

/// Whether the bot is working, for `/healthz`: polling has succeeded recently and the
/// database takes writes. "Recently" is two poll timeouts plus half a minute: a long poll
/// that ends without updates still counts, so a healthy bot never goes that long.
public final class BotHealth: Sendable {
    private let store: BotStore
    private let clock: ElapsedClock
    private let allowedSilence: Duration
    private let lastPoll = Mutex<Duration?>(nil)

    public init(store: BotStore, pollTimeout: Int, clock: any Clock<Duration>) {
        self.store = store
        self.clock = ElapsedClock(clock)
        self.allowedSilence = .seconds(2 * pollTimeout + 30)
    }

    /// The poller got an answer from Telegram.
    public func pollSucceeded() {
        let now = clock.elapsed()
        lastPoll.withLock { $0 = now }
    }

    /// Healthy, or the reason not.
    public func check() async -> Result<Void, Unhealthy> {
        guard let last = lastPoll.withLock({ $0 }) else { return .failure(Unhealthy(reason: "Telegram has not been polled successfully yet")) }
        let silence = clock.elapsed() - last
        guard silence <= allowedSilence else {
            return .failure(Unhealthy(reason: "no successful poll of Telegram for \(Int(silence.seconds)) s"))
        }
        do {
            try await store.checkWritable()
        } catch {
            return .failure(Unhealthy(reason: "the database does not take writes: \(error)"))
        }
        return .success(())
    }

    public struct Unhealthy: Error, Sendable {
        public var reason: String
    }
}
