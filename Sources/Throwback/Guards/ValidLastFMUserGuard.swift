import Foundation
import LastFM
import Networking

/// Checks a Last.fm name: syntax first, then existence with `user.getInfo`. Answers are
/// cached, "not found" too for a short while, and the invocation continues with Last.fm's
/// spelling of the name.
public actor ValidLastFMUserGuard: CommandGuard {
    private enum Answer {
        case exists(String)
        case notFound
    }

    private let lastFM: any LastFMClient
    private let clock: ElapsedClock
    private let foundLifetime: Duration
    private let notFoundLifetime: Duration
    private let unknownUserHint: String?
    private var answers: BoundedCache<String, Answer>

    public init(
        lastFM: any LastFMClient, clock: any Clock<Duration> = ContinuousClock(),
        foundLifetime: Duration = .seconds(24 * 3600), notFoundLifetime: Duration = .seconds(300), capacity: Int = 10_000,
        unknownUserHint: String? = nil
    ) {
        self.unknownUserHint = unknownUserHint
        self.lastFM = lastFM
        self.clock = ElapsedClock(clock)
        self.foundLifetime = foundLifetime
        self.notFoundLifetime = notFoundLifetime
        self.answers = BoundedCache(capacity: capacity)
    }

    public func check(_ invocation: CommandInvocation) async -> GuardDecision {
        guard let name = invocation.lastFMUser else { return .allow(invocation) }
        guard LastFMName.isValid(name) else {
            return .deny("“\(name.prefix(40))” is not a Last.fm username (2–15 letters, digits, _ or -, starting with a letter).")
        }
        let key = name.lowercased()
        let now = clock.elapsed()
        if let cached = answers.value(forKey: key, now: now) {
            return decision(cached, invocation, asked: name)
        }
        do {
            let user = try await lastFM.userInfo(name)
            answers.set(.exists(user.name), forKey: key, expiresAt: now + foundLifetime)
            return decision(.exists(user.name), invocation, asked: name)
        } catch LastFMError.userNotFound {
            answers.set(.notFound, forKey: key, expiresAt: now + notFoundLifetime)
            return decision(.notFound, invocation, asked: name)
        } catch let error as LastFMError {
            return .deny(error.userMessage)
        } catch {
            return .deny("Could not check that Last.fm user. Try again in a minute.")
        }
    }

    private func decision(_ answer: Answer, _ invocation: CommandInvocation, asked name: String) -> GuardDecision {
        switch answer {
        case .exists(let canonical):
            var refined = invocation
            refined.lastFMUser = canonical
            return .allow(refined)
        case .notFound:
            return .deny(LastFMError.userNotFound(name).userMessage(hint: unknownUserHint))
        }
    }
}

extension LastFMError {
    /// The line a person reads, with `hint` after "no such user" (the demo lists its users).
    func userMessage(hint: String?) -> String {
        guard case .userNotFound = self, let hint else { return userMessage }
        return "\(userMessage) \(hint)"
    }
}
