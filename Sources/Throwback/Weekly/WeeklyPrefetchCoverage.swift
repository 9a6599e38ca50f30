import Foundation
import Logging
import Networking

/// How much of the next day's weekly posts is fetched already: of the users in posts due
/// within `WeeklyPrefetcher.horizon`, how many have their weeks in the cache, so that their
/// post asks no source for them.
public struct WeeklyPrefetchCoverage: Sendable, Equatable {
    public var fetched: Int
    public var due: Int

    public init(fetched: Int, due: Int) {
        self.fetched = fetched
        self.due = due
    }

    /// A line for `vinylogue-bot check`.
    public var line: String {
        guard due > 0 else { return "Weekly posts: none due in the next 24 hours." }
        let percent = Int((Double(fetched) / Double(due) * 100).rounded(.down))
        return "Weekly posts: \(fetched) of \(due) users' weeks for the posts due in the next 24 hours are fetched (\(percent)%)."
    }
}

extension BotAssembly {
    /// Measures what the weekly posts due in the next day would find in `store`'s cache, by
    /// composing each user's entry as the post does, over clients that never reach the network:
    /// an answer the cache lacks fails at once instead of being fetched.
    public func weeklyPrefetchCoverage(store: BotStore) async throws -> WeeklyPrefetchCoverage {
        var options = Options(
            breakerClock: self.options.breakerClock, now: self.options.now,
            makeLogger: { Logger(label: $0, factory: { _ in SwiftLogNoOpLogHandler() }) }
        )
        options.lastFMRetry = .none
        // No source is asked, so no pacing either.
        options.lastFMRequestsPerSecond = 100_000
        options.listenBrainzRequestsPer10Seconds = 100_000
        options.libreFMRequestsPerSecond = 100_000
        let offline = BotAssembly(configuration: configuration, lastFMTransport: CacheOnlyTransport(), lastFMKey: Secret("cache-only"), options: options)
        let lastFM = offline.lastFM(breaker: CircuitBreaker(), store: store)
        let composer = WeeklyPostComposer(engine: ThrowbackEngine(history: offline.listening(lastFM: lastFM, store: store), now: options.now))
        var coverage = WeeklyPrefetchCoverage(fetched: 0, due: 0)
        for post in try await WeeklyPrefetcher.upcoming(at: options.now(), calendar: calendar, store: store) {
            coverage.due += post.roster.count
            guard post.fetchable else { continue }
            for user in post.roster {
                let entry = try await composer.entry(for: user, minimumPlayCount: post.settings.minimumPlayCount, at: post.dueAt)
                if entry.content != .unavailable { coverage.fetched += 1 }
            }
        }
        return coverage
    }
}

/// A network that is never there: every request fails before it is sent.
private struct CacheOnlyTransport: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        throw TransportError("not asked: only the cache is read", requestMayHaveBeenSent: false)
    }
}
