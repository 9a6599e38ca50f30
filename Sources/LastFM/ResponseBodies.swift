import Foundation
import WeeklyCharts

// The JSON envelopes of each method, decoded leniently and turned into the public models.

struct UserInfoBody: Decodable {
    var user: LastFMUser

    private enum Root: String, CodingKey { case user }
    private enum Keys: String, CodingKey { case name, realname, playcount, registered, profileCreated = "profile_created" }
    private enum Registered: String, CodingKey { case unixtime, text = "#text" }

    init(from decoder: any Decoder) throws {
        let root = try decoder.container(keyedBy: Root.self)
        let user = try root.nestedContainer(keyedBy: Keys.self, forKey: .user)
        var registered: Date?
        if let reg = try? user.nestedContainer(keyedBy: Registered.self, forKey: .registered),
           let unix = reg.lenientInt(.unixtime) ?? reg.lenientInt(.text) {
            registered = Date(timeIntervalSince1970: TimeInterval(unix))
        } else if let created = try? user.decodeIfPresent(String.self, forKey: .profileCreated) {
            // GNU FM (Libre.fm) has no `registered`, only this text (UserXML.php, getInfo).
            registered = CTimeText.date(created)
        }
        self.user = LastFMUser(
            name: try user.decode(String.self, forKey: .name),
            realName: user.text(.realname).flatMap { $0.isEmpty ? nil : $0 },
            playCount: user.lenientInt(.playcount),
            registered: registered
        )
    }
}

struct ChartListBody: Decodable {
    var ranges: [WeeklyChartRange]

    private enum Root: String, CodingKey { case weeklychartlist }
    private enum List: String, CodingKey { case chart }
    private struct Entry: Decodable {
        var range: WeeklyChartRange?
        private enum Keys: String, CodingKey { case from, to }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Keys.self)
            if let from = c.lenientInt(.from), let to = c.lenientInt(.to), WeeklyChartRange.plausible(from: from, to: to) {
                range = WeeklyChartRange(fromUnix: from, toUnix: to)
            }
        }
    }

    init(from decoder: any Decoder) throws {
        let root = try decoder.container(keyedBy: Root.self)
        // `"weeklychartlist": ""` is how an empty history sometimes arrives.
        guard let list = try? root.nestedContainer(keyedBy: List.self, forKey: .weeklychartlist) else {
            _ = try root.decode(OneOrMany<String>.self, forKey: .weeklychartlist)
            ranges = []
            return
        }
        ranges = try list.list(Entry.self, .chart).compactMap(\.range).sorted()
    }
}

struct AlbumChartBody: Decodable {
    var albums: [ChartAlbum]
    var user: String?
    var range: WeeklyChartRange?

    private enum Root: String, CodingKey { case weeklyalbumchart }
    private enum Chart: String, CodingKey { case album, attr = "@attr" }
    private enum ChartAttr: String, CodingKey { case user, from, to }
    private struct Entry: Decodable {
        var album: ChartAlbum
        private enum Keys: String, CodingKey { case artist, name, playcount, attr = "@attr", url }
        private enum Attr: String, CodingKey { case rank }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Keys.self)
            let rank = (try? c.nestedContainer(keyedBy: Attr.self, forKey: .attr))?.lenientInt(.rank)
            album = ChartAlbum(
                artist: c.text(.artist) ?? "",
                name: c.text(.name) ?? "",
                playCount: c.lenientInt(.playcount) ?? 0,
                rank: rank ?? 0,
                url: (try? c.decodeIfPresent(String.self, forKey: .url)).flatMap { $0.flatMap(URL.init(string:)) }
            )
        }
    }

    init(from decoder: any Decoder) throws {
        let root = try decoder.container(keyedBy: Root.self)
        guard let chart = try? root.nestedContainer(keyedBy: Chart.self, forKey: .weeklyalbumchart) else {
            _ = try root.decode(OneOrMany<String>.self, forKey: .weeklyalbumchart)
            albums = []
            return
        }
        albums = try chart.list(Entry.self, .album).map(\.album)
        if let attr = try? chart.nestedContainer(keyedBy: ChartAttr.self, forKey: .attr) {
            user = try? attr.decodeIfPresent(String.self, forKey: .user)
            if let from = attr.lenientInt(.from), let to = attr.lenientInt(.to), WeeklyChartRange.plausible(from: from, to: to) {
                range = WeeklyChartRange(fromUnix: from, toUnix: to)
            }
        }
    }
}

struct FriendsBody: Decodable {
    var page: FriendsPage

    private enum Root: String, CodingKey { case friends }
    private enum List: String, CodingKey { case user, attr = "@attr" }
    private enum Attr: String, CodingKey { case page, totalPages }
    private struct Entry: Decodable {
        var user: LastFMUser
        private enum Keys: String, CodingKey { case name, realname, playcount }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Keys.self)
            user = LastFMUser(
                name: try c.decode(String.self, forKey: .name),
                realName: c.text(.realname).flatMap { $0.isEmpty ? nil : $0 },
                playCount: c.lenientInt(.playcount)
            )
        }
    }

    init(from decoder: any Decoder) throws {
        let root = try decoder.container(keyedBy: Root.self)
        guard let list = try? root.nestedContainer(keyedBy: List.self, forKey: .friends) else {
            _ = try root.decode(OneOrMany<String>.self, forKey: .friends)
            page = FriendsPage(friends: [], page: 1, totalPages: 1)
            return
        }
        let attr = try? list.nestedContainer(keyedBy: Attr.self, forKey: .attr)
        page = FriendsPage(
            friends: try list.list(Entry.self, .user).map(\.user),
            page: attr?.lenientInt(.page) ?? 1,
            totalPages: attr?.lenientInt(.totalPages) ?? 1
        )
    }
}

struct AlbumInfoBody: Decodable {
    var info: AlbumInfo

    private enum Root: String, CodingKey { case album }
    private enum Keys: String, CodingKey { case name, artist, image }

    init(from decoder: any Decoder) throws {
        let root = try decoder.container(keyedBy: Root.self)
        let album = try root.nestedContainer(keyedBy: Keys.self, forKey: .album)
        info = AlbumInfo(
            artist: album.text(.artist) ?? "",
            name: album.text(.name) ?? "",
            coverURL: LastFMImage.largest(in: try album.list(LastFMImage.self, .image))
        )
    }
}

struct RecentTracksBody: Decodable {
    var page: RecentTracksPage

    private enum Root: String, CodingKey { case recenttracks }
    private enum List: String, CodingKey { case track, attr = "@attr" }
    private enum Attr: String, CodingKey { case page, totalPages }
    private struct Entry: Decodable {
        var track: RecentTrack
        private enum Keys: String, CodingKey { case artist, album, date, image, attr = "@attr" }
        private enum When: String, CodingKey { case uts }
        private enum TrackAttr: String, CodingKey { case nowplaying }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Keys.self)
            var playedAt: Date?
            // The track playing now is no play yet: Last.fm sends it undated, GNU FM dated now
            // (UserXML.php, getRecentTracks). A time outside 1970…5000 is no time either.
            let nowPlaying = (try? c.nestedContainer(keyedBy: TrackAttr.self, forKey: .attr))
                .flatMap { try? $0.decodeIfPresent(String.self, forKey: .nowplaying) } == "true"
            if !nowPlaying, let date = try? c.nestedContainer(keyedBy: When.self, forKey: .date), let uts = date.lenientInt(.uts),
               WeeklyChartRange.plausible(from: uts, to: uts + 1) {
                playedAt = Date(timeIntervalSince1970: TimeInterval(uts))
            }
            track = RecentTrack(
                artist: c.text(.artist) ?? "", album: c.text(.album) ?? "", playedAt: playedAt,
                coverURL: LastFMImage.largest(in: (try? c.list(LastFMImage.self, .image)) ?? [])
            )
        }
    }

    init(from decoder: any Decoder) throws {
        let root = try decoder.container(keyedBy: Root.self)
        guard let list = try? root.nestedContainer(keyedBy: List.self, forKey: .recenttracks) else {
            _ = try root.decode(OneOrMany<String>.self, forKey: .recenttracks)
            page = RecentTracksPage(tracks: [], page: 1, totalPages: 1)
            return
        }
        let attr = try? list.nestedContainer(keyedBy: Attr.self, forKey: .attr)
        page = RecentTracksPage(
            tracks: try list.list(Entry.self, .track).map(\.track),
            page: attr?.lenientInt(.page) ?? 1,
            totalPages: attr?.lenientInt(.totalPages) ?? 1
        )
    }
}

/// `{"error": 6, "message": "User not found"}`, the code maybe a string; or GNU FM's error
/// element as its JSON encoder writes it, `{"error": {"#text": "Invalid resource specified", "code": "7"}}`.
struct ErrorBody: Decodable {
    var code: Int
    var message: String

    private enum Keys: String, CodingKey { case error, message }
    private enum Element: String, CodingKey { case code, text = "#text" }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        if let code = c.lenientInt(.error) {
            self.code = code
            message = (try? c.decodeIfPresent(String.self, forKey: .message)) ?? ""
        } else if let element = try? c.nestedContainer(keyedBy: Element.self, forKey: .error), let code = element.lenientInt(.code) {
            self.code = code
            message = (try? element.decodeIfPresent(String.self, forKey: .text)) ?? ""
        } else {
            throw DecodingError.dataCorruptedError(forKey: .error, in: c, debugDescription: "no error code")
        }
    }
}
