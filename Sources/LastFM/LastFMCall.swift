import Foundation
import Networking
import WeeklyCharts

/// One typed Last.fm API call: the method, its parameters, how to read its answer, and how long
/// its answer stays true. Adaptors (retry, rate limit, cache) work on calls, not methods.
public struct LastFMCall<Response: Codable & Sendable>: Sendable {
    /// The API method, e.g. `user.getweeklychartlist`.
    public let method: String
    /// Parameters other than `method`, `api_key` and `format`, in a stable order.
    public let parameters: [(name: String, value: String)]
    public let cachePolicy: LastFMCachePolicy
    /// Reads the answer from a body already read onto a tape.
    let read: @Sendable (JSONNode) throws -> Response
    /// The answer that a Last.fm error code stands for, where one is an answer rather than a
    /// failure (an album Last.fm does not know has no cover), so that it is cached like one.
    let answerForError: (@Sendable (Int) -> Response?)?

    init<Body: JSONReadable>(
        method: String,
        parameters: [(String, String)],
        cachePolicy: LastFMCachePolicy,
        body: Body.Type,
        answerForError: (@Sendable (Int) -> Response?)? = nil,
        transform: @escaping @Sendable (Body) -> Response
    ) {
        self.method = method
        self.parameters = parameters.map { (name: $0.0, value: $0.1) }
        self.cachePolicy = cachePolicy
        self.answerForError = answerForError
        self.read = { json in transform(try Body(json: json)) }
    }

    /// The `user` parameter, if the call has one.
    public var user: String? {
        parameters.first { $0.name == "user" }?.value
    }

    /// A key that identifies the answer. Last.fm names are case-insensitive, so values are lowercased.
    /// `%`, `|` and `=` inside a value are written `%25`, `%7C` and `%3D`: an artist
    /// `x|album=y` is then not the album `y|album=z`. A value without them keys as it always
    /// has, so the stored cache stays valid.
    public var cacheKey: String {
        // Bytes, not text appended piece by piece: a key is made for every warm look-up, and
        // escaping scalar by scalar into a `String` cost 4% of a warm burst's instructions. The
        // three characters are ASCII, so no byte of another character is ever one of them.
        var key: [UInt8] = []
        key.reserveCapacity(parameters.reduce(method.utf8.count) { $0 + $1.name.utf8.count + $1.value.utf8.count + 2 })
        key.append(contentsOf: method.utf8)
        for (name, value) in parameters {
            key.append(UInt8(ascii: "|"))
            key.append(contentsOf: name.utf8)
            key.append(UInt8(ascii: "="))
            for byte in value.lowercased().utf8 {
                switch byte {
                case UInt8(ascii: "%"): key.append(contentsOf: "%25".utf8)
                case UInt8(ascii: "|"): key.append(contentsOf: "%7C".utf8)
                case UInt8(ascii: "="): key.append(contentsOf: "%3D".utf8)
                default: key.append(byte)
                }
            }
        }
        return String(decoding: key, as: UTF8.self)
    }

    /// Reads a successful response body; throws `JSONNode.Malformed` for one that is not this method's answer.
    public func decode(_ data: Data) throws -> Response {
        try read(JSONNode(answer: data))
    }
}

/// How long an answer can be reused.
public enum LastFMCachePolicy: Sendable, Equatable {
    /// Never cached.
    case none
    /// Cached until the next weekly boundary (Sunday 12:00 UTC), when a new chart week appears.
    case untilNextWeek
    /// A chart for the week ending at `weekEnd`: forever once that week is over.
    case chartWeek(endingAt: Date)
    /// Cached for a fixed time.
    case duration(Duration)
    /// Never changes: kept for good (subject to the cache's bounds).
    case forever
}

extension LastFMCall {
    /// `user.getInfo`: validates a name and returns Last.fm's spelling of it.
    public static func userInfo(_ user: String) -> LastFMCall<LastFMUser> {
        .init(method: "user.getinfo", parameters: [("user", user)], cachePolicy: .duration(.seconds(3600)),
              body: UserInfoBody.self) { $0.user }
    }

    /// `user.getWeeklyChartList`: every weekly range the user has, oldest first.
    public static func weeklyChartList(user: String) -> LastFMCall<[WeeklyChartRange]> {
        .init(method: "user.getweeklychartlist", parameters: [("user", user)], cachePolicy: .untilNextWeek,
              body: ChartListBody.self) { $0.ranges }
    }

    /// `user.getWeeklyAlbumChart` for one range, albums by rank.
    public static func weeklyAlbumChart(user: String, range: WeeklyChartRange) -> LastFMCall<WeeklyAlbumChart> {
        .init(method: "user.getweeklyalbumchart",
              parameters: [("user", user), ("from", String(range.fromUnix)), ("to", String(range.toUnix))],
              cachePolicy: .chartWeek(endingAt: range.to),
              body: AlbumChartBody.self) { body in
            WeeklyAlbumChart(user: body.user ?? user, range: range, albums: body.albums)
        }
    }

    /// `user.getFriends`, one page.
    public static func friends(user: String, page: Int = 1, limit: Int = 50) -> LastFMCall<FriendsPage> {
        .init(method: "user.getfriends",
              parameters: [("user", user), ("page", String(page)), ("limit", String(limit))],
              cachePolicy: .none, body: FriendsBody.self) { $0.page }
    }

    /// `user.getRecentTracks`, one page, newest first: how a week is built where the server has
    /// no weekly charts (Libre.fm). With a range, only the scrobbles in `[from, to)`: GNU FM
    /// excludes both bounds (Server.php, getRecentScrobbles), so `from` is sent a second early.
    /// The week is cached whole, by whoever builds it, so the pages are not.
    public static func recentTracks(user: String, range: WeeklyChartRange?, page: Int, limit: Int = 200) -> LastFMCall<RecentTracksPage> {
        let bounds = range.map { [("from", String($0.fromUnix - 1)), ("to", String($0.toUnix))] } ?? []
        return .init(method: "user.getrecenttracks",
                     parameters: [("user", user)] + bounds + [("page", String(page)), ("limit", String(limit))],
                     cachePolicy: .none, body: RecentTracksBody.self) { $0.page }
    }

    /// `album.getInfo`, for the cover image. An album's art hardly ever changes, so the
    /// answer is kept for good, and "Album not found" (error 6) is an answer too: no cover.
    public static func albumInfo(artist: String, album: String) -> LastFMCall<AlbumInfo> {
        .init(method: "album.getinfo", parameters: [("artist", artist), ("album", album)],
              cachePolicy: .forever, body: AlbumInfoBody.self,
              answerForError: { code in code == 6 ? AlbumInfo(artist: artist, name: album, coverURL: nil) : nil }) { $0.info }
    }
}
