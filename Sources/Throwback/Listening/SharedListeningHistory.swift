import LastFM
import Networking

/// Shares requests in flight: two chats that ask for the same cold week of the same user at
/// the same moment cost one chain of requests, not two. Every source is behind it.
public struct SharedListeningHistory: ListeningHistory {
    private struct WeekKey: Hashable, Sendable {
        var user: String
        var range: WeeklyChartRange
    }

    private let base: any ListeningHistory
    private let accounts = SharedRequests<String, String>()
    private let weekLists = SharedRequests<String, [WeeklyChartRange]>()
    private let charts = SharedRequests<WeekKey, WeeklyAlbumChart>()

    public init(base: any ListeningHistory) {
        self.base = base
    }

    /// Callers waiting for a request in flight, for tests.
    public var callersWaiting: Int {
        accounts.callers + weekLists.callers + charts.callers
    }

    public func account(_ name: String) async throws -> String {
        try await accounts.value(for: name.lowercased()) { [base] in try await base.account(name) }
    }

    public func weeks(of user: String) async throws -> [WeeklyChartRange] {
        try await weekLists.value(for: user.lowercased()) { [base] in try await base.weeks(of: user) }
    }

    public func albumChart(of user: String, in range: WeeklyChartRange) async throws -> WeeklyAlbumChart {
        try await charts.value(for: WeekKey(user: user.lowercased(), range: range)) { [base] in try await base.albumChart(of: user, in: range) }
    }
}
