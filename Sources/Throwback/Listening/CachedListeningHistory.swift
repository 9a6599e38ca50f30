import Foundation
import LastFM
import WeeklyCharts

/// Keeps what a built source (ListenBrainz, Libre.fm) costs many requests to learn: a past
/// week's chart for good, the list of weeks until the next week begins. The answers are
/// kept as Last.fm's are (`TieredAnswers`): decoded in memory, encoded in the same store
/// (SQLite in the bot) under keys namespaced by source. Errors and the current week are never
/// kept.
///
/// A miss is shared: callers that ask for the same cold week at the same moment wait for one
/// chain of requests, and so do callers checking the same name.
public struct CachedListeningHistory: ListeningHistory {
    private let base: any ListeningHistory
    private let namespace: String
    private let answers: TieredAnswers
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - namespace: the source's name in cache keys, e.g. `listenbrainz`.
    ///   - memoryCapacity: decoded answers kept in memory, least recently used first out.
    public init(
        base: any ListeningHistory, namespace: String, store: any LastFMCacheStore, memoryCapacity: Int = 256,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.base = base
        self.namespace = namespace
        self.answers = TieredAnswers(store: store, memoryCapacity: memoryCapacity)
        self.now = now
    }

    /// Callers waiting for a look-up in flight, for tests.
    public var callersWaiting: Int { answers.callersWaiting }

    public func account(_ name: String) async throws -> String {
        // Not kept: the guard that checks names keeps its own answers.
        try await answers.shared("\(namespace)|account|\(name.lowercased())") { [base] in try await base.account(name) }
    }

    public func weeks(of user: String) async throws -> [WeeklyChartRange] {
        let now = now()
        return try await answers.value(
            forKey: "\(namespace)|weeks|\(user.lowercased())", now: now, expiresAt: LastFMWeek.nextBoundary(after: now)
        ) { [base] in try await base.weeks(of: user) }
    }

    public func albumChart(of user: String, in range: WeeklyChartRange) async throws -> WeeklyAlbumChart {
        let now = now()
        let key = "\(namespace)|week|\(user.lowercased())|\(range.fromUnix)|\(range.toUnix)"
        // A week still running changes with every play: only a finished one is kept.
        guard range.to <= now else { return try await answers.shared(key) { [base] in try await base.albumChart(of: user, in: range) } }
        return try await answers.value(forKey: key, now: now, expiresAt: nil) { [base] in try await base.albumChart(of: user, in: range) }
    }
}
