import LastFM
import WeeklyCharts

/// Last.fm as a listening source: its own weekly chart list and weekly album charts, through
/// the Last.fm client chain (which retries, paces, breaks the circuit and caches).
public struct LastFMHistory: ListeningHistory {
    private let lastFM: any LastFMClient

    public init(lastFM: any LastFMClient) {
        self.lastFM = lastFM
    }

    public func account(_ name: String) async throws -> String {
        try await lastFM.userInfo(name).name
    }

    public func weeks(of user: String) async throws -> [WeeklyChartRange] {
        try await lastFM.weeklyChartList(user: user)
    }

    public func albumChart(of user: String, in range: WeeklyChartRange) async throws -> WeeklyAlbumChart {
        try await lastFM.weeklyAlbumChart(user: user, range: range)
    }
}
