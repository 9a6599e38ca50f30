import Covers
import Foundation

/// A scriptable Last.fm on loopback: fixture users with chart lists and raw album-chart JSON,
/// a queue of injected faults, and gates that hold a response until a test opens them.
///
/// `album.getInfo` answers with image URLs on this same server, as Last.fm points at its
/// image host, and the server serves real image bytes there: a PNG or a JPEG made from the
/// album's names. Albums have no art unless `setCover` or `setDefaultCover` says so (the
/// tests that are not about covers stay text); `setCover` can also make an album unknown
/// to Last.fm, or its image URL answer any status and body.
public actor FakeLastFM {
    /// One request the fake received.
    public struct Call: Sendable, Equatable {
        public var method: String
        public var user: String?
        public var query: [String: String]
    }

    /// Something to answer instead of the fixture, once.
    public enum Fault: Sendable {
        /// Last.fm error JSON with the given HTTP status (200 by default, as Last.fm often does).
        case lastFMError(Int, status: Int = 200)
        /// Any status and raw body, e.g. an HTML error page on 502.
        case raw(status: Int, body: String)
    }

    public private(set) var calls: [Call] = []
    private var users: [String: (name: String, ranges: [(Int, Int)])] = [:]
    private var albumCharts: [String: String] = [:]
    private var friendLists: [String: [String]] = [:]
    private var faults: [(method: String?, fault: Fault)] = []
    private var outage: Fault?
    private var privateUsers: Set<String> = []
    private var failingUsers: Set<String> = []
    private let countWaiters = Waitlist<Int>()
    private var gates: [String: Gate] = [:]
    private var server: FakeHTTPServer?
    private let userWaiters = Waitlist<String>()

    /// What the fake serves for an album's cover.
    public enum Cover: Sendable {
        /// A 300×300 PNG or JPEG drawn from the album's names (the format alternates by album).
        case generated
        /// The album's cover as a JPEG of the given side.
        case jpeg(side: Int)
        /// `album.getInfo` lists no image.
        case none
        /// `album.getInfo` answers error 6, "Album not found".
        case unknownAlbum
        /// The image URL answers this status, body and `Content-Type`.
        case served(status: Int, body: Data, contentType: String)
    }

    private var covers: [String: Cover] = [:]
    private var defaultCover = Cover.none
    private var coverIDs: [String: Int] = [:]
    private var coverBodies: [Int: (status: Int, body: Data, contentType: String)] = [:]
    /// Requests for cover images (not API calls).
    public private(set) var coverDownloads = 0
    /// At most `requests` answered in any `window`, and when the answered ones arrived lately.
    var rateLimit: (requests: Int, window: Duration, elapsed: @Sendable () -> Duration)?, answeredAt: [Duration] = []
    /// Requests refused with error 29 for going beyond the rate limit.
    public internal(set) var rateLimitRefusals = 0

    public init() {}

    /// What albums without a `setCover` of their own get.
    public func setDefaultCover(_ cover: Cover) {
        defaultCover = cover
    }

    /// Sets what `album.getInfo` and the image URL answer for one album.
    public func setCover(artist: String, album: String, _ cover: Cover) {
        let key = Self.albumKey(artist, album)
        covers[key] = cover
        if let id = coverIDs[key] { coverBodies[id] = nil }
    }

    /// Starts serving and returns the API root to configure as `LASTFM_API_URL`.
    public func start() async throws -> URL {
        let server = try await FakeHTTPServer.start { [self] request in await self.handle(request) }
        self.server = server
        return server.baseURL.appendingPathComponent("2.0/")
    }

    /// Opens every gate, so held requests finish, then stops the server.
    public func stop() async {
        for gate in gates.values { await gate.open() }
        await server?.stop()
    }

    /// Adds a user whose chart list holds `ranges` (Unix `from`, `to`).
    public func addUser(_ name: String, ranges: [(from: Int, to: Int)]) {
        users[name.lowercased()] = (name, ranges.map { ($0.from, $0.to) })
    }

    /// Sets `user`'s Last.fm friends.
    public func setFriends(of user: String, _ friends: [String]) {
        friendLists[user.lowercased()] = friends
    }

    /// Sets the raw JSON of `user`'s album chart for the week starting at `from`.
    public func setAlbumChart(user: String, from: Int, json: String) {
        albumCharts["\(user.lowercased())|\(from)"] = json
    }

    /// Sets `user`'s album chart for the week starting at `from` from (artist, album, plays) rows.
    public func setAlbumChart(user: String, from: Int, to: Int, albums: [(artist: String, name: String, plays: Int)]) {
        let rows = albums.enumerated().map { index, album in
            [
                "artist": ["#text": album.artist, "mbid": ""], "name": album.name, "mbid": "",
                "playcount": "\(album.plays)", "@attr": ["rank": "\(index + 1)"], "url": "",
            ] as [String: Any]
        }
        let object: [String: Any] = ["weeklyalbumchart": [
            "album": rows, "@attr": ["user": users[user.lowercased()]?.name ?? user, "from": "\(from)", "to": "\(to)"],
        ]]
        let data = try! JSONSerialization.data(withJSONObject: object)
        albumCharts["\(user.lowercased())|\(from)"] = String(decoding: data, as: UTF8.self)
    }

    /// Answers the next request (of `method`, if given) with `fault` instead of the fixture.
    public func inject(_ fault: Fault, method: String? = nil, times: Int = 1) {
        for _ in 0..<times { faults.append((method, fault)) }
    }

    /// Makes `user`'s listening data private: charts answer error 17, as Last.fm does.
    public func setPrivate(_ user: String) {
        privateUsers.insert(user.lowercased())
    }

    /// Every request about `user` fails with error 8 ("operation failed"), retries included.
    public func failAlways(user: String) {
        failingUsers.insert(user.lowercased())
    }

    /// Every request gets `fault` until `endOutage()`.
    public func beginOutage(_ fault: Fault) {
        outage = fault
    }

    public func endOutage() {
        outage = nil
    }

    /// Returns once the fake has received `count` requests in all.
    public func waitForCalls(count: Int) async throws {
        if calls.count >= count { return }
        try await countWaiters.wait(for: count)
    }

    /// Holds every response for `user` until `open()` is called on the returned gate.
    public func hold(user: String) -> Gate {
        let gate = Gate()
        gates[user.lowercased()] = gate
        return gate
    }

    /// The number of requests of `method`, or of all methods.
    public func count(_ method: String? = nil) -> Int {
        calls.filter { method == nil || $0.method == method }.count
    }

    /// The number of requests of every method but `method`.
    public func count(excluding method: String) -> Int {
        calls.filter { $0.method != method }.count
    }

    /// Returns once the fake has received a call for `user`.
    public func waitForCall(user: String) async throws {
        if calls.contains(where: { $0.user?.lowercased() == user.lowercased() }) { return }
        try await userWaiters.wait(for: user.lowercased())
    }

    private func handle(_ request: FakeRequest) async -> FakeResponse {
        if request.path.hasPrefix("/covers/") { return coverImage(path: request.path) }
        let method = request.query["method"]?.lowercased() ?? ""
        let user = request.query["user"]
        let call = Call(method: method, user: user, query: request.query)
        calls.append(call)
        let lowered = user?.lowercased()
        userWaiters.resume { $0 == lowered }
        countWaiters.resume { $0 <= calls.count }
        if let user, let gate = gates[user.lowercased()] {
            await gate.wait()
        }
        if let refusal = rateLimitRefusal() { return refusal }
        let fault = faults.firstIndex(where: { $0.method == nil || $0.method == method }).map { faults.remove(at: $0).fault } ?? outage
        if let fault {
            switch fault {
            case let .lastFMError(code, status):
                return .json(#"{"error": \#(code), "message": "Injected error \#(code)"}"#, status: status)
            case let .raw(status, body):
                return FakeResponse(status: status, body: Data(body.utf8))
            }
        }
        guard request.query["api_key"]?.isEmpty == false else {
            return .json(#"{"error": 10, "message": "Invalid API key"}"#, status: 403)
        }
        if method == "album.getinfo" { return albumInfo(artist: request.query["artist"] ?? "", album: request.query["album"] ?? "") }
        guard let user, let fixture = users[user.lowercased()] else {
            return .json(#"{"error": 6, "message": "User not found"}"#)
        }
        if failingUsers.contains(user.lowercased()) {
            return .json(#"{"error": 8, "message": "Operation failed - Most likely the backend service failed. Please try again."}"#, status: 500)
        }
        if privateUsers.contains(user.lowercased()), method != "user.getinfo" {
            return .json(#"{"error": 17, "message": "Login: User required to be logged in"}"#)
        }
        switch method {
        case "user.getinfo":
            return .json(object: ["user": ["name": fixture.name, "playcount": "1234", "registered": ["unixtime": "1000000000"]]])
        case "user.getweeklychartlist":
            let charts = fixture.ranges.map { ["#text": "", "from": "\($0.0)", "to": "\($0.1)"] }
            return .json(object: ["weeklychartlist": ["chart": charts, "@attr": ["user": fixture.name]]])
        case "user.getweeklyalbumchart":
            let from = request.query["from"] ?? ""
            let to = request.query["to"] ?? ""
            if let json = albumCharts["\(user.lowercased())|\(from)"] { return .json(json) }
            return .json(object: ["weeklyalbumchart": ["album": [], "@attr": ["user": fixture.name, "from": from, "to": to]]])
        case "user.getfriends":
            let friends = (friendLists[user.lowercased()] ?? []).map { ["name": $0, "realname": ""] }
            return .json(object: ["friends": ["user": friends, "@attr": ["user": fixture.name, "page": "1", "totalPages": "1"]]])
        default:
            return .json(#"{"error": 3, "message": "Invalid Method"}"#)
        }
    }
}

extension FakeLastFM {
    private static func albumKey(_ artist: String, _ album: String) -> String {
        "\(artist.lowercased())\u{0}\(album.lowercased())"
    }

    /// `album.getInfo`, with image URLs in Last.fm's sizes, the largest last.
    private func albumInfo(artist: String, album: String) -> FakeResponse {
        guard !artist.isEmpty, !album.isEmpty else { return .json(#"{"error": 6, "message": "Invalid parameters"}"#) }
        let key = Self.albumKey(artist, album)
        let cover = covers[key] ?? defaultCover
        if case .unknownAlbum = cover { return .json(#"{"error": 6, "message": "Album not found"}"#) }
        var images: [[String: String]] = ["small", "medium", "large", "extralarge", "mega"].map { ["#text": "", "size": $0] }
        if case .none = cover {} else {
            let id = coverIDs[key] ?? coverIDs.count + 1
            coverIDs[key] = id
            let url = server?.baseURL.appendingPathComponent("covers/\(id).img").absoluteString ?? ""
            // Like Last.fm: every size filled in, the biggest ("mega") sometimes empty.
            for index in 0..<4 { images[index]["#text"] = url + (index < 3 ? "?size=\(index)" : "") }
        }
        return .json(object: ["album": [
            "name": album, "artist": artist, "mbid": "", "url": "", "image": images,
            "listeners": "1234", "playcount": "5678",
        ] as [String: Any]])
    }

    private func coverImage(path: String) -> FakeResponse {
        coverDownloads += 1
        let idText = path.dropFirst("/covers/".count).prefix { $0.isNumber }
        guard let id = Int(idText), let key = coverIDs.first(where: { $0.value == id })?.key else {
            return FakeResponse(status: 404, body: Data("<html>Not Found</html>".utf8), contentType: "text/html")
        }
        if let body = coverBodies[id] { return FakeResponse(status: body.status, body: body.body, contentType: body.contentType) }
        let names = key.split(separator: "\u{0}", omittingEmptySubsequences: false).map(String.init)
        let art = DemoCover.image(artist: names[0], album: names.count > 1 ? names[1] : "", side: 300)
        let body: (status: Int, body: Data, contentType: String)
        switch covers[key] ?? defaultCover {
        case .served(let status, let data, let contentType):
            body = (status, data, contentType)
        case .jpeg(let side):
            body = (200, Self.jpeg(of: art, side: side), "image/jpeg")
        case .generated where key.utf8.count.isMultiple(of: 2):
            body = (200, Self.jpeg(of: art, side: 300), "image/jpeg")
        default:
            body = (200, art, "image/png")
        }
        coverBodies[id] = body
        return FakeResponse(status: body.status, body: body.body, contentType: body.contentType)
    }

    /// A real JPEG of `side`×`side` showing `png`.
    static func jpeg(of png: Data, side: Int) -> Data {
        (try? CollageRenderer(canvasSide: side).renderSync([CollageTile(rank: 1, image: png)])) ?? Data()
    }
}
