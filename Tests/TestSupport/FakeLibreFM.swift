import Foundation

/// Libre.fm on loopback, answering as its server, GNU FM, does (the gnu-fm repository,
/// `nixtape/`): `user.getInfo` and `user.getRecentTracks`, in JSON only with `format=json`,
/// every answer with HTTP 200, errors included.
public actor FakeLibreFM {
    /// One scrobble of the fixture.
    public typealias Scrobble = (at: Int, artist: String, album: String)

    private struct User {
        var name: String
        var created: Int
        var createdText: String?
        var scrobbles: [Scrobble]
        var nowPlaying: (artist: String, album: String)?
    }

    /// The methods asked, in order.
    public private(set) var methods: [String] = []
    /// The `page` asked of each `user.getRecentTracks`, in order.
    public private(set) var pagesAsked: [Int] = []
    private var users: [String: User] = [:]
    private var server: FakeHTTPServer?

    public init() {}

    /// Starts serving and returns the root to configure as `LIBREFM_API_URL`.
    public func start() async throws -> URL {
        let server = try await FakeHTTPServer.start { [self] request in await self.handle(request) }
        self.server = server
        return server.baseURL.appendingPathComponent("2.0/")
    }

    public func stop() async {
        await server?.stop()
    }

    /// Adds a user whose profile was created at `created` (Unix time), with these scrobbles and
    /// perhaps a track playing now. `createdText` replaces `profile_created`, as a server in
    /// another locale writes it.
    public func addUser(
        _ name: String, created: Int, createdText: String? = nil, scrobbles: [Scrobble], nowPlaying: (artist: String, album: String)? = nil
    ) {
        users[name.lowercased()] = User(
            name: name, created: created, createdText: createdText, scrobbles: scrobbles.sorted { $0.at > $1.at }, nowPlaying: nowPlaying
        )
    }

    /// The number of requests of `method`.
    public func count(_ method: String) -> Int {
        methods.filter { $0 == method }.count
    }

    private func handle(_ request: FakeRequest) -> FakeResponse {
        // 2.0/index.php: the method name is lowercased, then looked up.
        let method = request.query["method"]?.lowercased() ?? ""
        methods.append(method)
        // 2.0/index.php, respond(): XML unless JSON is asked for.
        guard request.query["format"] == "json" else {
            return FakeResponse(body: Data(#"<?xml version="1.0"?><lfm status="ok"/>"#.utf8), contentType: "text/xml")
        }
        guard method == "user.getinfo" || method == "user.getrecenttracks" else {
            // 2.0/index.php, report_failure(): a number and a message, with HTTP 200.
            return .json(object: ["error": 3, "message": "Invalid Method - No method with that name in this package"])
        }
        guard let name = request.query["user"] else {
            return .json(object: ["error": 6, "message": "Invalid parameters - Your request is missing a required parameter"])
        }
        // data/User.php: users are found by `lower(username)`; an unknown one throws, and
        // api/UserXML.php turns that into error 7.
        guard let user = users[name.lowercased()] else { return Self.invalidResource }
        return method == "user.getinfo" ? info(user) : recentTracks(user, request.query)
    }

    /// api/UserXML.php, getInfo: every value a string; `profile_created` is `strftime('%c')`.
    private func info(_ user: User) -> FakeResponse {
        let avatar = "https://www.gravatar.com/avatar/0?d=monsterid"
        let images = ["small", "medium", "large", "extralarge"].map { ["#text": avatar, "size": $0] }
        return .json(object: ["user": [
            "name": user.name, "realname": "", "homepage": "", "location": "", "image": images, "bio": "",
            "url": "https://libre.fm/user/\(user.name)", "playcount": "\(user.scrobbles.count)",
            "profile_created": user.createdText ?? Self.cTime(user.created),
        ] as [String: Any]])
    }

    /// api/UserXML.php, getRecentTracks, over data/Server.php, getRecentScrobbles.
    private func recentTracks(_ user: User, _ query: [String: String]) -> FakeResponse {
        // 2.0/index.php: limit 50 and page 1 by default, no maximum.
        let limit = query["limit"].flatMap { Int($0) } ?? 50
        let page = query["page"].flatMap { Int($0) } ?? 1
        pagesAsked.append(page)
        guard limit > 0, page > 0 else { return Self.invalidResource }
        // Server.php: `from` and `to` only when PHP finds them true ("" and "0" are not), and
        // both exclusive: `s.time > from`, `s.time < to`; newest first, LIMIT and OFFSET.
        func bound(_ key: String) -> Int? {
            guard let text = query[key], !text.isEmpty, text != "0" else { return nil }
            return Int(text) ?? 0
        }
        let from = bound("from"), to = bound("to")
        let matching = user.scrobbles.filter { scrobble in
            (from.map { scrobble.at > $0 } ?? true) && (to.map { scrobble.at < $0 } ?? true)
        }
        let slice = matching.dropFirst((page - 1) * limit).prefix(limit)
        // UserXML.php: no scrobble on the page is error 7, whatever is playing now.
        guard !slice.isEmpty else { return Self.invalidResource }
        var tracks = slice.map { Self.track(artist: $0.artist, album: $0.album, at: $0.at) }
        // On page 1 the track playing now comes first, dated now, whatever `from` and `to` ask.
        if page == 1, let playing = user.nowPlaying {
            var track = Self.track(artist: playing.artist, album: playing.album, at: Int(Date().timeIntervalSince1970))
            track["@attr"] = ["nowplaying": "true"]
            tracks.insert(track, at: 0)
        }
        // User.php, getTotalTracks: every scrobble of the user, not the range's.
        let totalPages = (user.scrobbles.count + limit - 1) / limit
        // api/JSONEncoder.php: one element is a bare object, not a list.
        let list: Any = tracks.count == 1 ? tracks[0] : tracks
        return .json(object: ["recenttracks": [
            "track": list,
            "@attr": ["user": user.name, "page": "\(page)", "perPage": "\(limit)", "totalPages": "\(totalPages)"],
        ] as [String: Any]])
    }

    /// api/xml.php, XML::error, as api/JSONEncoder.php writes an element with an attribute.
    private static let invalidResource = FakeResponse.json(##"{"error":{"#text":"Invalid resource specified","code":"7"}}"##)

    /// api/UserXML.php, _addTrackDetails: no images; every value a string.
    private static func track(artist: String, album: String, at time: Int) -> [String: Any] {
        [
            "artist": ["#text": artist, "mbid": ""], "name": "Track", "mbid": "", "album": ["#text": album, "mbid": ""],
            "url": "https://libre.fm/artist/\(artist)/album/\(album)/track/Track",
            "date": ["#text": gmdate(time), "uts": "\(time)"], "streamable": "",
        ]
    }

    private static var utc: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// PHP's `gmdate('d M Y H:i') . ' GMT'`.
    private static func gmdate(_ time: Int) -> String {
        let c = utc.dateComponents([.year, .month, .day, .hour, .minute], from: Date(timeIntervalSince1970: TimeInterval(time)))
        return "\(two(c.day!)) \(months[c.month! - 1]) \(c.year!) \(two(c.hour!)):\(two(c.minute!)) GMT"
    }

    /// C's `strftime("%c")` in the C locale, `%a %b %e %H:%M:%S %Y`, in a server set to UTC.
    private static func cTime(_ time: Int) -> String {
        let c = utc.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: Date(timeIntervalSince1970: TimeInterval(time)))
        let day = c.day! < 10 ? " \(c.day!)" : "\(c.day!)"
        return "\(days[c.weekday! - 1]) \(months[c.month! - 1]) \(day) \(two(c.hour!)):\(two(c.minute!)):\(two(c.second!)) \(c.year!)"
    }

    private static func two(_ number: Int) -> String {
        number < 10 ? "0\(number)" : "\(number)"
    }
}
