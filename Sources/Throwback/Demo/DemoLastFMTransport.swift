import Covers
import Foundation
import LastFM
import Networking

/// An offline stand-in for the Last.fm API: it answers the same URLs with the same JSON,
/// quirks included (numbers as strings, `#text`, a single album as a bare object), from
/// `DemoListeningData`. The real client and its decoding run unchanged on top of it. It
/// answers ListenBrainz (`DemoListenBrainz`) and Libre.fm (`DemoLibreFM`) as well, wherever
/// their roots are configured: the first by its path, the second by the key its client sends.
///
/// Album covers are drawn on request (`DemoCover`): `album.getInfo` points at a made-up
/// image host that this transport answers too, so collages work offline.
public struct DemoLastFMTransport: HTTPTransport {
    /// The image host of the demo's covers; never looked up on the network.
    static let coverHost = "covers.demo.invalid"

    private let data: DemoListeningData
    private let now: @Sendable () -> Date

    public init(data: DemoListeningData = DemoListeningData(), now: @escaping @Sendable () -> Date = Date.init) {
        self.data = data
        self.now = now
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let query = Dictionary(
            (URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") },
            uniquingKeysWith: { first, _ in first }
        )
        if request.url.host == Self.coverHost {
            return HTTPResponse(status: 200, body: DemoCover.image(artist: query["artist"] ?? "", album: query["album"] ?? ""))
        }
        if request.url.path.hasSuffix("/listens") { return DemoListenBrainz(data: data, now: now()).answer(request.url, query: query) }
        if query["api_key"] == BotAssembly.libreFMKey.reveal() { return DemoLibreFM(data: data, now: now()).answer(query) }
        let method = query["method"]?.lowercased() ?? ""
        if method == "album.getinfo" {
            let artist = query["artist"] ?? "", album = query["album"] ?? ""
            var cover = URLComponents()
            cover.scheme = "https"
            cover.host = Self.coverHost
            cover.path = "/cover.png"
            cover.queryItems = [URLQueryItem(name: "artist", value: artist), URLQueryItem(name: "album", value: album)]
            let image = [["#text": cover.url?.absoluteString ?? "", "size": "extralarge"]]
            return json(["album": ["name": album, "artist": artist, "image": image]])
        }
        guard let listener = data.listener(query["user"] ?? "") else {
            return json(["error": 6, "message": "User not found"])
        }
        switch method {
        case "user.getinfo":
            return json(["user": [
                "name": listener.name, "realname": listener.realName, "playcount": "\(listener.favourites.count * 1000)",
                "registered": ["unixtime": "\(Int(listener.since.timeIntervalSince1970))"],
            ]])
        case "user.getweeklychartlist":
            let charts = data.chartList(for: listener, now: now()).map {
                ["#text": "", "from": "\($0.fromUnix)", "to": "\($0.toUnix)"]
            }
            return json(["weeklychartlist": ["chart": charts, "@attr": ["user": listener.name]]])
        case "user.getweeklyalbumchart":
            guard let from = Int(query["from"] ?? ""), let to = Int(query["to"] ?? "") else {
                return json(["error": 6, "message": "Invalid parameters"])
            }
            let albums: [[String: Any]] = data.albums(for: listener, weekStart: Date(timeIntervalSince1970: TimeInterval(from))).map {
                ["artist": ["#text": $0.artist, "mbid": ""], "name": $0.name, "mbid": "",
                 "playcount": "\($0.playCount)", "@attr": ["rank": "\($0.rank)"], "url": ""]
            }
            var chart: [String: Any] = ["@attr": ["user": listener.name, "from": "\(from)", "to": "\(to)"]]
            // Last.fm's quirks: one album arrives as a bare object, none as no key at all.
            if albums.count == 1 { chart["album"] = albums[0] } else if !albums.isEmpty { chart["album"] = albums }
            return json(["weeklyalbumchart": chart])
        case "user.getfriends":
            let friends = listener.friends.map { ["name": $0, "realname": $0.capitalized] }
            return json(["friends": ["user": friends, "@attr": ["user": listener.name, "page": "1", "totalPages": "1"]]])
        default:
            return json(["error": 3, "message": "Invalid Method - No method with that name in this package"])
        }
    }

    private func json(_ object: [String: Any]) -> HTTPResponse {
        HTTPResponse(status: 200, body: (try? JSONSerialization.data(withJSONObject: object)) ?? Data())
    }
}
