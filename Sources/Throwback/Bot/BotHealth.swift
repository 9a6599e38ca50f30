import Foundation
import Networking
import Synchronization

/// Whether the bot is working, for `/healthz`: polling has succeeded recently and the
/// database takes writes. "Recently" is two poll timeouts plus half a minute: a long poll
/// that ends without updates still counts, so a healthy bot never goes that long.
///
/// A bot on a webhook does not poll, and may hear nothing for days: it is healthy once
/// Telegram took its `setWebhook` and while the database takes writes. That `/healthz`
/// answers at all shows the HTTP server the updates arrive on is serving.
///
/// Successful polls are also stamped in the database, at most once per `stampInterval`, so
/// that `healthcheck` in another process can tell the same without the HTTP endpoint, and
/// so that replicas that do not poll (one polls at a time) are healthy while one does.
public final class BotHealth: Sendable {
    /// The least time between two stamps: a busy bot polls many times a second.
    public static let stampInterval: Duration = .seconds(15)

    private let store: BotStore
    private let clock: ElapsedClock
    private let now: @Sendable () -> Date
    private let allowedSilence: Duration
    private let pollTimeout: Int
    private let polls = Mutex<(last: Duration?, stamped: Duration?)>((nil, nil))
    private let byWebhook: Bool
    private let webhookIsSet = Mutex(false)

    /// - Parameter byWebhook: updates arrive on a webhook rather than by polling.
    public init(
        store: BotStore, pollTimeout: Int, clock: any Clock<Duration>, now: @escaping @Sendable () -> Date = Date.init, byWebhook: Bool = false
    ) {
        self.byWebhook = byWebhook
        self.store = store
        self.clock = ElapsedClock(clock)
        self.now = now
        self.allowedSilence = Self.allowedSilence(pollTimeout: pollTimeout)
        self.pollTimeout = pollTimeout
    }

    static func allowedSilence(pollTimeout: Int) -> Duration {
        .seconds(2 * pollTimeout + 30)
    }

    /// The poller got an answer from Telegram.
    public func pollSucceeded() async {
        let elapsed = clock.elapsed()
        let due = polls.withLock { polls in
            polls.last = elapsed
            guard polls.stamped.map({ elapsed - $0 >= Self.stampInterval }) ?? true else { return false }
            polls.stamped = elapsed
            return true
        }
        guard due else { return }
        do {
            try await store.recordPoll(at: now())
        } catch {
            // The next poll tries again; meanwhile the health check sees the stamp age, and
            // the database's own failure.
            polls.withLock { $0.stamped = nil }
        }
    }

    /// Telegram took the webhook.
    public func webhookSet() async {
        webhookIsSet.withLock { $0 = true }
    }

    /// Healthy, or the reason not.
    public func check() async -> Result<Void, Unhealthy> {
        if byWebhook {
            guard webhookIsSet.withLock({ $0 }) else { return .failure(Unhealthy(reason: "the webhook has not been set with Telegram yet")) }
            return await Self.check(silence: .zero, allowed: allowedSilence, store: store)
        }
        // Among replicas one polls at a time, and stamps its polls in the shared database:
        // every replica is healthy while those stamps are recent.
        if store.servesReplicas {
            return await Self.checkStamped(in: store, pollTimeout: pollTimeout, now: now()).map { _ in () }
        }
        guard let last = polls.withLock({ $0.last }) else { return .failure(Unhealthy(reason: "Telegram has not been polled successfully yet")) }
        return await Self.check(silence: clock.elapsed() - last, allowed: allowedSilence, store: store)
    }

    /// The health of the bot that keeps `store`, judged from another process by the last
    /// stamped poll: healthy, with the seconds since that poll, or the reason not.
    public static func checkStamped(in store: BotStore, pollTimeout: Int, now: Date) async -> Result<Int, Unhealthy> {
        let last: Date?
        do {
            last = try await store.lastPoll()
        } catch {
            return .failure(Unhealthy(reason: "the database cannot be read: \(error)"))
        }
        guard let last else { return .failure(Unhealthy(reason: "Telegram has not been polled successfully yet")) }
        // A clock set back makes a stamp from the future: that is no silence.
        let seconds = max(0, now.timeIntervalSince(last))
        let allowed = allowedSilence(pollTimeout: pollTimeout) + stampInterval
        return await check(silence: .seconds(seconds), allowed: allowed, store: store).map { Int(seconds) }
    }

    private static func check(silence: Duration, allowed: Duration, store: BotStore) async -> Result<Void, Unhealthy> {
        guard silence <= allowed else {
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
