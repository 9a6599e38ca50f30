import Foundation
import Networking
import WeeklyCharts

// The JSON envelopes of each method, read leniently (see LenientReading.swift) and turned
// into the public models. An envelope that is not there, or not an object, fails the answer.

struct UserInfoBody: JSONReadable {
    var user: LastFMUser

    init(json: JSONNode) throws {
        let user = try json.requireObject().required("user") { $0.isReadableObject ? $0 : nil }
        var registered: Date?
        if let unix = user.object("registered").flatMap({ $0.lenientInt("unixtime") ?? $0.lenientInt("#text") }) {
            registered = Date(timeIntervalSince1970: TimeInterval(unix))
        } else if let created = user.string("profile_created") {
            // GNU FM (Libre.fm) has no `registered`, only this text (UserXML.php, getInfo).
            registered = CTimeText.date(created)
        }
        self.user = LastFMUser(
            name: try user.required("name") { $0.string },
            realName: user.text("realname").flatMap { $0.isEmpty ? nil : $0 },
            playCount: user.lenientInt("playcount"),
            registered: registered
        )
    }
}

struct ChartListBody: JSONReadable {
    var ranges: [WeeklyChartRange]

    init(json: JSONNode) throws {
        // `"weeklychartlist": ""` is how an empty history sometimes arrives.
        guard let list = try json.requireObject().object("weeklychartlist") else {
            try json.requireEmptyList("weeklychartlist")
            ranges = []
            return
        }
        ranges = try list.list("chart") { (entry) throws -> WeeklyChartRange? in
            let range = try entry.requireObject()
            guard let from = range.lenientInt("from"), let to = range.lenientInt("to"), WeeklyChartRange.plausible(from: from, to: to) else {
                return nil
            }
            return WeeklyChartRange(fromUnix: from, toUnix: to)
        }.compactMap { $0 }.sorted()
    }
}

struct AlbumChartBody: JSONReadable {
    var albums: [ChartAlbum]
    var user: String?
    var range: WeeklyChartRange?

    init(json: JSONNode) throws {
        guard let chart = try json.requireObject().object("weeklyalbumchart") else {
            try json.requireEmptyList("weeklyalbumchart")
            albums = []
            return
        }
        albums = try chart.list("album") { entry in
            let album = try entry.requireObject()
            return ChartAlbum(
                artist: album.text("artist") ?? "",
                name: album.text("name") ?? "",
                playCount: album.lenientInt("playcount") ?? 0,
                rank: album.object("@attr")?.lenientInt("rank") ?? 0,
                url: album.string("url").flatMap(URL.init(string:))
            )
        }
        if let attr = chart.object("@attr") {
            user = attr.string("user")
            if let from = attr.lenientInt("from"), let to = attr.lenientInt("to"), WeeklyChartRange.plausible(from: from, to: to) {
                range = WeeklyChartRange(fromUnix: from, toUnix: to)
            }
        }
    }
}

struct FriendsBody: JSONReadable {
    var page: FriendsPage

    init(json: JSONNode) throws {
        guard let list = try json.requireObject().object("friends") else {
            try json.requireEmptyList("friends")
            page = FriendsPage(friends: [], page: 1, totalPages: 1)
            return
        }
        let attr = list.object("@attr")
        page = FriendsPage(
            friends: try list.list("user") { entry in
                let user = try entry.requireObject()
                return LastFMUser(
                    name: try user.required("name") { $0.string },
                    realName: user.text("realname").flatMap { $0.isEmpty ? nil : $0 },
                    playCount: user.lenientInt("playcount")
                )
            },
            page: attr?.lenientInt("page") ?? 1,
            totalPages: attr?.lenientInt("totalPages") ?? 1
        )
    }
}

struct AlbumInfoBody: JSONReadable {
    var info: AlbumInfo

    init(json: JSONNode) throws {
        let album = try json.requireObject().required("album") { $0.isReadableObject ? $0 : nil }
        info = AlbumInfo(
            artist: album.text("artist") ?? "",
            name: album.text("name") ?? "",
            coverURL: LastFMImage.largest(in: try album.list("image", LastFMImage.init(json:)))
        )
    }
}

struct RecentTracksBody: JSONReadable {
    var page: RecentTracksPage

    init(json: JSONNode) throws {
        guard let list = try json.requireObject().object("recenttracks") else {
            try json.requireEmptyList("recenttracks")
            page = RecentTracksPage(tracks: [], page: 1, totalPages: 1)
            return
        }
        let attr = list.object("@attr")
        page = RecentTracksPage(
            tracks: try list.list("track", Self.track),
            page: attr?.lenientInt("page") ?? 1,
            totalPages: attr?.lenientInt("totalPages") ?? 1
        )
    }

    private static func track(_ json: JSONNode) throws -> RecentTrack {
        let track = try json.requireObject()
        var playedAt: Date?
        // The track playing now is no play yet: Last.fm sends it undated, GNU FM dated now
        // (UserXML.php, getRecentTracks). A time outside 1970…5000 is no time either, and the
        // largest integer is checked first so that the range's end cannot overflow.
        let nowPlaying = track.object("@attr")?.string("nowplaying") == "true"
        if !nowPlaying, let uts = track.object("date")?.lenientInt("uts"), uts < Int.max,
           WeeklyChartRange.plausible(from: uts, to: uts + 1) {
            playedAt = Date(timeIntervalSince1970: TimeInterval(uts))
        }
        return RecentTrack(
            artist: track.text("artist") ?? "", album: track.text("album") ?? "", playedAt: playedAt,
            coverURL: LastFMImage.largest(in: (try? track.list("image", LastFMImage.init(json:))) ?? [])
        )
    }
}

/// `{"error": 6, "message": "User not found"}`, the code maybe a string; or GNU FM's error
/// element as its JSON encoder writes it, `{"error": {"#text": "Invalid resource specified", "code": "7"}}`.
struct ErrorBody: JSONReadable {
    var code: Int
    var message: String

    init(json: JSONNode) throws {
        let body = try json.requireObject()
        if let code = body.lenientInt("error") {
            self.code = code
            message = body.string("message") ?? ""
        } else if let element = body.object("error"), let code = element.lenientInt("code") {
            self.code = code
            message = element.string("#text") ?? ""
        } else {
            throw JSONNode.Malformed(description: "no error code")
        }
    }
}
