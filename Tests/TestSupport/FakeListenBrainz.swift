import Foundation

/// A strict ListenBrainz on loopback: `GET /1/user/{name}/listens` with `max_ts`, `min_ts` and
/// `count` as listenbrainz-server reads them (webserver/views/api.py, get_listens, and
/// listenstore/timescale_listenstore.py, fetch_listens): both bounds exclusive; newest first,
/// or with `min_ts` the oldest `count` after it, still newest first; `count` at most 1000
/// (anything else a 400, stricter than the server, which clamps). Names are found whatever
/// their case: `user_id` repeats the name as the URL wrote it, and each listen's `user_name`
/// is the stored spelling. 404 for unknown users, the rate-limit headers on every answer, and
/// 429s on demand. Listens come with or without `mbid_mapping`. `GET /1/validate-token` answers
/// as listenbrainz-server's webserver/views/api.py `validate_token` does: the token from an
/// `Authorization: Token …` header (or a `token` query parameter), 400 without one, and 200
/// with `valid` true and the user's name, or false.
public actor FakeListenBrainz {
    /// One listen of the fixture.
    public struct FakeListen: Sendable {
        public var at: Int
        public var artist: String
        public var release: String?
        /// `recording_msid`; nil gives each listen of the fixture its own.
        public var msid: String?
        /// Sets `mbid_mapping` (release MBID, CAA id and CAA release); nil leaves the mapping out.
        public var mapping: (releaseMBID: String, caaID: Int?, caaReleaseMBID: String?)?

        public init(
            at: Int, artist: String, release: String?, msid: String? = nil, mapping: (releaseMBID: String, caaID: Int?, caaReleaseMBID: String?)? = nil
        ) {
            self.at = at
            self.artist = artist
            self.release = release
            self.msid = msid
            self.mapping = mapping
        }
    }

    /// One request the fake received: the user, `max_ts`, `min_ts` and `count`.
    public struct Call: Sendable, Equatable {
        public var user: String
        public var maxTimestamp: Int?
        public var minTimestamp: Int?
        public var count: Int
        public var authorization: String?
    }

    public private(set) var calls: [Call] = []
    /// Requests refused as malformed (bad `count`, `max_ts`, path or no User-Agent).
    public private(set) var badRequests = 0
    private var users: [String: (name: String, listens: [FakeListen])] = [:]
    /// User tokens, each to its user's name.
    private var tokens: [String: String] = [:]
    /// How many times `validate-token` was asked.
    public private(set) var tokenValidations = 0
    private var tooManyRequests: [Int] = []
    private var remaining = 100
    private var server: FakeHTTPServer?
    private var gate: Gate?
    private let countWaiters = Waitlist<Int>()

    public init() {}

    /// Starts serving and returns the root to configure as `LISTENBRAINZ_API_URL`.
    public func start() async throws -> URL {
        let server = try await FakeHTTPServer.start { [self] request in await self.handle(request) }
        self.server = server
        return server.baseURL
    }

    public func stop() async {
        await gate?.open()
        await server?.stop()
    }

    /// Adds a user with these listens (any order).
    public func addUser(_ name: String, listens: [FakeListen]) {
        let identified = listens.enumerated().map { index, listen in
            var listen = listen
            let digits = String(index)
            listen.msid = listen.msid ?? "00000000-0000-4000-8000-" + String(repeating: "0", count: max(0, 12 - digits.count)) + digits
            return listen
        }
        // The order of `ORDER BY listened_at DESC` among listens of one second is the SQL's to
        // choose; here it is that of the unique index (listened_at, user_id, recording_msid)
        // read backward, and `ASC` reads it forward.
        users[name.lowercased()] = (name, identified.sorted { ($0.at, $0.msid ?? "") > ($1.at, $1.msid ?? "") })
    }

    /// Makes `token` the user token of `user`.
    public func addToken(_ token: String, user: String) {
        tokens[token] = user
    }

    /// The next `times` requests answer 429 with `X-RateLimit-Reset-In: resetIn`.
    public func rateLimit(resetIn: Int, times: Int = 1) {
        tooManyRequests += Array(repeating: resetIn, count: times)
    }

    /// Sets what `X-RateLimit-Remaining` says from now on.
    public func setRemaining(_ value: Int) {
        remaining = value
    }

    /// Holds every response until the returned gate opens.
    public func hold() -> Gate {
        let gate = Gate()
        self.gate = gate
        return gate
    }

    /// Returns once the fake has received `count` requests.
    public func waitForCalls(count: Int) async throws {
        if calls.count >= count { return }
        try await countWaiters.wait(for: count)
    }

    private func handle(_ request: FakeRequest) async -> FakeResponse {
        if request.method == "GET", request.path == "/1/validate-token" { return validateToken(request) }
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: false)
        // "", "1", "user", name, "listens"
        guard request.method == "GET", parts.count == 5, parts[1] == "1", parts[2] == "user", parts[4] == "listens",
              let name = String(parts[3]).removingPercentEncoding,
              request.headers["user-agent"].map({ $0.contains("vinylogue") }) == true
        else { return bad("unexpected request") }
        let count = request.query["count"].map { Int($0) } ?? 25
        guard let count, (1...1000).contains(count) else { return bad("count must be 1 to 1000") }
        var bounds: [String: Int] = [:]
        for key in ["max_ts", "min_ts"] {
            guard let text = request.query[key] else { continue }
            guard let value = Int(text) else { return bad("\(key) must be a Unix time") }
            bounds[key] = value
        }
        let maxTimestamp = bounds["max_ts"], minTimestamp = bounds["min_ts"]
        if let maxTimestamp, let minTimestamp, maxTimestamp <= minTimestamp { return bad("max_ts should be greater than min_ts") }
        calls.append(Call(user: name, maxTimestamp: maxTimestamp, minTimestamp: minTimestamp, count: count, authorization: request.headers["authorization"]))
        countWaiters.resume { $0 <= calls.count }
        if let gate { await gate.wait() }
        if !tooManyRequests.isEmpty {
            let resetIn = tooManyRequests.removeFirst()
            return FakeResponse(
                status: 429, body: Data(#"{"code": 429, "error": "Too many requests"}"#.utf8),
                headers: ["X-RateLimit-Remaining": "0", "X-RateLimit-Reset-In": "\(resetIn)"]
            )
        }
        let headers = ["X-RateLimit-Remaining": "\(remaining)", "X-RateLimit-Reset-In": "7", "X-RateLimit-Limit": "100"]
        guard let user = users[name.lowercased()] else {
            return FakeResponse(status: 404, body: Data(#"{"code": 404, "error": "Cannot find user: \#(name)"}"#.utf8), headers: headers)
        }
        let matching = user.listens.filter { listen in
            (maxTimestamp.map { listen.at < $0 } ?? true) && (minTimestamp.map { listen.at > $0 } ?? true)
        }
        let page = minTimestamp == nil ? Array(matching.prefix(count)) : Array(matching.suffix(count))
        let object: [String: Any] = ["payload": [
            "count": page.count, "user_id": name,
            "latest_listen_ts": user.listens.first?.at ?? 0, "oldest_listen_ts": user.listens.last?.at ?? 0,
            "listens": page.map { Self.json($0, user: user.name) },
        ] as [String: Any]]
        return FakeResponse(status: 200, body: (try? JSONSerialization.data(withJSONObject: object)) ?? Data(), headers: headers)
    }

    private func validateToken(_ request: FakeRequest) -> FakeResponse {
        tokenValidations += 1
        let header = request.headers["authorization"] ?? ""
        let token = header.lowercased().hasPrefix("token ")
            ? header.split(separator: " ").dropFirst().first.map(String.init) ?? ""
            : request.query["token"] ?? ""
        guard !token.isEmpty else { return .json(#"{"code": 400, "error": "You need to provide an Authorization token."}"#, status: 400) }
        guard let user = tokens[token] else {
            return .json(#"{"code": 200, "message": "Token invalid.", "valid": false}"#)
        }
        return .json(object: ["code": 200, "message": "Token valid.", "valid": true, "user_name": user])
    }

    private func bad(_ message: String) -> FakeResponse {
        badRequests += 1
        return .json(#"{"code": 400, "error": "\#(message)"}"#, status: 400)
    }

    private static func json(_ listen: FakeListen, user: String) -> [String: Any] {
        var metadata: [String: Any] = ["artist_name": listen.artist, "track_name": "Track", "additional_info": ["listening_from": "fake"]]
        if let release = listen.release { metadata["release_name"] = release }
        if let mapping = listen.mapping {
            var object: [String: Any] = ["release_mbid": mapping.releaseMBID, "recording_mbid": "00000000-0000-0000-0000-000000000000"]
            if let id = mapping.caaID { object["caa_id"] = id }
            if let release = mapping.caaReleaseMBID { object["caa_release_mbid"] = release }
            metadata["mbid_mapping"] = object
        }
        return [
            "listened_at": listen.at, "inserted_at": listen.at, "user_name": user, "recording_msid": listen.msid ?? "", "track_metadata": metadata,
        ]
    }
}
