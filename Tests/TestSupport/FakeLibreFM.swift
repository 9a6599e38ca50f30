import Foundation

/// Libre.fm (GNU FM) on loopback: Last.fm's 2.0 protocol without the weekly chart methods,
/// as gnu-fm's nixtape/2.0/index.php and api/UserXML.php answer it. `user.getInfo` and
/// `user.getRecentTracks` (with `from`, `to`, `page` and `limit`) answer; every other method,
/// the weekly charts included, is error 3, "Invalid Method". Errors come with HTTP 200 in
/// two shapes: `{"error": 3, "message": …}` from the dispatcher, and error 7, "Invalid resource
/// specified", as `{"error": {"#text": …, "code": "7"}}` for an unknown user, and for recent
/// tracks whenever the page has no scrobbles (GNU FM tests its result for emptiness).
public actor FakeLibreFM {
    /// The methods asked, in order.
    public private(set) var methods: [String] = []
    private var users: [String: (name: String, registered: Int, scrobbles: [(at: Int, artist: String, album: String)])] = [:]
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

    /// Adds a user registered at `registered` (Unix time) with these scrobbles.
    public func addUser(_ name: String, registered: Int, scrobbles: [(at: Int, artist: String, album: String)]) {
        users[name.lowercased()] = (name, registered, scrobbles.sorted { $0.at > $1.at })
    }

    /// The number of requests of `method`.
    public func count(_ method: String) -> Int {
        methods.filter { $0 == method }.count
    }

    private func handle(_ request: FakeRequest) -> FakeResponse {
        let method = request.query["method"]?.lowercased() ?? ""
        methods.append(method)
        guard request.query["format"] == "json" else { return .json(#"{"error": 6, "message": "format"}"#) }
        switch method {
        case "user.getinfo", "user.getrecenttracks":
            break
        default:
            return .json(#"{"error": 3, "message": "Invalid Method - No method with that name in this package"}"#)
        }
        guard let name = request.query["user"] else {
            return .json(#"{"error": 6, "message": "Invalid parameters - Your request is missing a required parameter"}"#)
        }
        guard let user = users[name.lowercased()] else { return Self.invalidResource }
        if method == "user.getinfo" {
            return .json(object: ["user": ["name": user.name, "registered": ["unixtime": "\(user.registered)", "#text": "\(user.registered)"]]])
        }
        let from = Int(request.query["from"] ?? "") ?? 0
        let to = Int(request.query["to"] ?? "") ?? Int.max
        let limit = max(1, min(Int(request.query["limit"] ?? "") ?? 50, 200))
        let page = max(1, Int(request.query["page"] ?? "") ?? 1)
        // GNU FM's from and to are inclusive.
        let matching = user.scrobbles.filter { $0.at >= from && $0.at <= to }
        let totalPages = max(1, (matching.count + limit - 1) / limit)
        let slice = matching.dropFirst((page - 1) * limit).prefix(limit)
        if slice.isEmpty { return Self.invalidResource }
        let tracks = slice.map { scrobble in
            [
                "artist": ["#text": scrobble.artist, "mbid": ""], "name": "Track", "album": ["#text": scrobble.album, "mbid": ""],
                "date": ["uts": "\(scrobble.at)", "#text": ""], "image": [["#text": "", "size": "large"]],
            ] as [String: Any]
        }
        return .json(object: ["recenttracks": [
            "track": tracks,
            "@attr": ["user": user.name, "page": "\(page)", "perPage": "\(limit)", "totalPages": "\(totalPages)", "total": "\(matching.count)"],
        ] as [String: Any]])
    }

    /// Error 7 as GNU FM's JSON encoder writes an XML `<error code="7">` element.
    private static let invalidResource = FakeResponse.json(##"{"error": {"#text": "Invalid resource specified", "code": "7"}}"##)
}
