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
