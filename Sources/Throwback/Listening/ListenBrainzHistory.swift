import Foundation
import ListenBrainz
import WeeklyCharts

/// ListenBrainz as a listening source. It has no chart for a past week, so a week is built
/// from the user's raw listens (one request per 1000), and the weeks with data are those
/// between the first and the last listen. Wrap it in `CachedListeningHistory`: a past week
/// never changes, so it is built once.
public struct ListenBrainzHistory: ListeningHistory {
    private let client: any ListenBrainzClient
    private let coverArtArchive: URL
    private let now: @Sendable () -> Date

    /// - Parameter coverArtArchive: `COVER_ART_ARCHIVE_URL`, where albums' covers are found by release MBID.
    public init(client: any ListenBrainzClient, coverArtArchive: URL = CoverArtArchive.defaultRootURL, now: @escaping @Sendable () -> Date = Date.init) {
        self.client = client
        self.coverArtArchive = coverArtArchive
        self.now = now
    }

    public func account(_ name: String) async throws -> String {
        try await client.span(of: name).user
    }

    public func weeks(of user: String) async throws -> [WeeklyChartRange] {
        try await client.span(of: user).weeks(until: now())
    }

    public func albumChart(of user: String, in range: WeeklyChartRange) async throws -> WeeklyAlbumChart {
        try await client.albumChart(user: user, range: range, coverArtArchive: coverArtArchive)
    }
}
