import Foundation

/// One user's album chart of one week: Last.fm's `user.getWeeklyAlbumChart`, or one built
/// from single plays.
public struct WeeklyAlbumChart: Codable, Sendable, Equatable {
    public var user: String
    public var range: WeeklyChartRange
    public var albums: [ChartAlbum]

    public init(user: String, range: WeeklyChartRange, albums: [ChartAlbum]) {
        self.user = user
        self.range = range
        self.albums = albums
    }
}

/// An album in a weekly chart.
public struct ChartAlbum: Codable, Sendable, Equatable {
    public var artist: String
    public var name: String
    public var playCount: Int
    public var rank: Int
    public var url: URL?
    /// The cover, where the source names it with the chart (ListenBrainz, by release MBID in
    /// the Cover Art Archive); nil means "look it up", as for Last.fm charts.
    public var coverURL: URL?

    public init(artist: String, name: String, playCount: Int, rank: Int, url: URL? = nil, coverURL: URL? = nil) {
        self.artist = artist
        self.name = name
        self.playCount = playCount
        self.rank = rank
        self.url = url
        self.coverURL = coverURL
    }
}
