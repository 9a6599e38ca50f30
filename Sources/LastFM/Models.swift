import Foundation

/// A Last.fm account, as `user.getInfo` and `user.getFriends` describe it.
public struct LastFMUser: Codable, Sendable, Equatable {
    /// The name in Last.fm's own spelling.
    public var name: String
    public var realName: String?
    public var playCount: Int?
    public var registered: Date?

    public init(name: String, realName: String? = nil, playCount: Int? = nil, registered: Date? = nil) {
        self.name = name
        self.realName = realName
        self.playCount = playCount
        self.registered = registered
    }
}

/// One weekly chart range. Last.fm's weeks run from Sunday 12:00 UTC to the next Sunday 12:00 UTC.
public struct WeeklyChartRange: Codable, Sendable, Hashable, Comparable {
    public var from: Date
    public var to: Date

    public init(from: Date, to: Date) {
        self.from = from
        self.to = to
    }

    /// Ranges as Unix times, the way the API takes them.
    public init(fromUnix: Int, toUnix: Int) {
        self.init(from: Date(timeIntervalSince1970: TimeInterval(fromUnix)), to: Date(timeIntervalSince1970: TimeInterval(toUnix)))
    }

    /// Whether Unix times from the API make a range worth using: ordered, and between 1970
    /// and the year 5000, so that converting them back can never overflow.
    static func plausible(from: Int, to: Int) -> Bool {
        0 <= from && from < to && to < 95_617_584_000
    }

    public var fromUnix: Int { Int(from.timeIntervalSince1970) }
    public var toUnix: Int { Int(to.timeIntervalSince1970) }

    /// Whether `date` falls in `[from, to)`: a boundary instant belongs to the week it starts.
    public func contains(_ date: Date) -> Bool {
        from <= date && date < to
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.from, lhs.to) < (rhs.from, rhs.to)
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

/// One scrobble of `user.getRecentTracks`, reduced to what a week's album chart needs.
public struct RecentTrack: Codable, Sendable, Equatable {
    public var artist: String
    public var album: String
    /// When it was played; nil for the track playing now, which has no time yet.
    public var playedAt: Date?
    public var coverURL: URL?

    public init(artist: String, album: String, playedAt: Date?, coverURL: URL? = nil) {
        self.artist = artist
        self.album = album
        self.playedAt = playedAt
        self.coverURL = coverURL
    }
}

/// One page of `user.getRecentTracks`.
public struct RecentTracksPage: Codable, Sendable, Equatable {
    public var tracks: [RecentTrack]
    public var page: Int
    public var totalPages: Int

    public init(tracks: [RecentTrack], page: Int, totalPages: Int) {
        self.tracks = tracks
        self.page = page
        self.totalPages = totalPages
    }
}

/// `user.getWeeklyAlbumChart` for one user and range.
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

/// One page of `user.getFriends`.
public struct FriendsPage: Codable, Sendable, Equatable {
    public var friends: [LastFMUser]
    public var page: Int
    public var totalPages: Int

    public init(friends: [LastFMUser], page: Int, totalPages: Int) {
        self.friends = friends
        self.page = page
        self.totalPages = totalPages
    }
}

/// `album.getInfo`, reduced to what a chart needs: the cover.
public struct AlbumInfo: Codable, Sendable, Equatable {
    public var artist: String
    public var name: String
    public var coverURL: URL?

    public init(artist: String, name: String, coverURL: URL?) {
        self.artist = artist
        self.name = name
        self.coverURL = coverURL
    }
}
