import Foundation
import LastFM
import Networking
import Synchronization

/// Checks a listener's name (`alice` on Last.fm, `lb:bob`, `librefm:carol`): syntax first,
/// then existence with its own service (Last.fm's `user.getInfo`, ListenBrainz's listens).
/// Answers are cached, "not found" too for a short while, and the invocation continues with
/// the name as stored: the service's spelling, with the source's prefix unless it is Last.fm.
///
/// Every throwback passes it: its answers are behind a lock rather than an actor, which would
/// cost each command two hops.
public final class ValidListenerGuard: CommandGuard {
    private enum Answer: Sendable {
        case exists(String)
        /// The service's "no such user", said in each asker's language.
        case notFound(ListeningError)
    }

    private let history: any ListeningHistory
    private let clock: ElapsedClock
    private let foundLifetime: Duration
    private let notFoundLifetime: Duration
    private let unknownUserHint: (@Sendable (Language) -> String)?
    private let answers: SharedBoundedCache<String, Answer>

    /// A guard for Last.fm names only.
    public convenience init(
        lastFM: any LastFMClient, clock: any Clock<Duration> = ContinuousClock(),
        foundLifetime: Duration = .seconds(24 * 3600), notFoundLifetime: Duration = .seconds(300), capacity: Int = 10_000,
        unknownUserHint: (@Sendable (Language) -> String)? = nil
    ) {
        self.init(
            history: LastFMHistory(lastFM: lastFM), clock: clock, foundLifetime: foundLifetime, notFoundLifetime: notFoundLifetime,
            capacity: capacity, unknownUserHint: unknownUserHint
        )
    }

    /// - Parameter history: every source, usually `ListeningSources`.
    public init(
        history: any ListeningHistory, clock: any Clock<Duration> = ContinuousClock(),
        foundLifetime: Duration = .seconds(24 * 3600), notFoundLifetime: Duration = .seconds(300), capacity: Int = 10_000,
        unknownUserHint: (@Sendable (Language) -> String)? = nil
    ) {
        self.unknownUserHint = unknownUserHint
        self.history = history
        self.clock = ElapsedClock(clock)
        self.foundLifetime = foundLifetime
        self.notFoundLifetime = notFoundLifetime
        self.answers = SharedBoundedCache(capacity: capacity)
    }

    public func check(_ invocation: CommandInvocation) async -> GuardDecision {
        guard let typed = invocation.lastFMUser else { return .allow(invocation) }
        guard let listener = ListenerName(parsing: typed) else {
            return .deny(ListenerName.syntaxHelp(typed, in: invocation.language))
        }
        let name = listener.qualified
        let key = name.lowercased()
        let now = clock.elapsed()
        if let cached = answers.value(forKey: key, now: now) {
            return decision(cached, invocation)
        }
        do {
            let canonical = try await history.account(name)
            answers.set(.exists(canonical), forKey: key, expiresAt: now + foundLifetime)
            return decision(.exists(canonical), invocation)
        } catch let error as ListeningError where error.unknownName != nil {
            let answer = Answer.notFound(error)
            answers.set(answer, forKey: key, expiresAt: now + notFoundLifetime)
            return decision(answer, invocation)
        } catch let error as ListeningError {
            return .deny(error.userMessage(in: invocation.language))
        } catch {
            return .deny(invocation.language.text(.listenerCheckFailed, listener.source.serviceName))
        }
    }

    private func decision(_ answer: Answer, _ invocation: CommandInvocation) -> GuardDecision {
        switch answer {
        case .exists(let canonical):
            var refined = invocation
            refined.lastFMUser = canonical
            return .allow(refined)
        case .notFound(let error):
            return .deny(error.userMessage(hint: unknownUserHint, in: invocation.language))
        }
    }
}
