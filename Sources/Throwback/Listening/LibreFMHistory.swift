import Foundation
import LastFM
import LibreFM
import WeeklyCharts

/// Libre.fm as a listening source: weeks built from its scrobbles (`LibreFMClient`). Wrap it
/// in `CachedListeningHistory`.
public struct LibreFMHistory: ListeningHistory {
    private let client: LibreFMClient

    /// - Parameter client: a Last.fm protocol client for `LIBREFM_API_URL`, with its own
    ///   adaptors, whose errors name Libre.fm.
    public init(client: any LastFMClient, now: @escaping @Sendable () -> Date = Date.init) {
        self.client = LibreFMClient(client: client, now: now)
    }

    public func account(_ name: String) async throws -> String {
        try await client.account(name)
    }

    public func weeks(of user: String) async throws -> [WeeklyChartRange] {
        try await client.weeks(of: user)
    }

    public func albumChart(of user: String, in range: WeeklyChartRange) async throws -> WeeklyAlbumChart {
        try await client.albumChart(of: user, in: range)
    }
}
