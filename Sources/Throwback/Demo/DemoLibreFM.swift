import Foundation
import LastFM
import Networking

/// The demo's Libre.fm, answering as Libre.fm's server, GNU FM, does, so that the real client
/// and `LibreFMHistory` run on it unchanged: `user.getInfo` with `profile_created`, and
/// `user.getRecentTracks` with exclusive `from` and `to`; every other method error 3;
/// "nothing there" (no such user, no scrobble on the page) error 7 as an element; every answer
/// with HTTP 200; `totalPages` counting all of a user's scrobbles; and on page 1, the track
/// playing now, dated now.
struct DemoLibreFM {
    let data: DemoListeningData
    let now: Date

    func answer(_ query: [String: String]) -> HTTPResponse {
        let method = query["method"]?.lowercased() ?? ""
        guard query["format"] == "json" else {
            return HTTPResponse(status: 200, body: Data(#"<?xml version="1.0"?><lfm status="ok"/>"#.utf8))
        }
        guard method == "user.getinfo" || method == "user.getrecenttracks" else {
            return Self.json(["error": 3, "message": "Invalid Method - No method with that name in this package"])
        }
        guard let name = query["user"] else {
            return Self.json(["error": 6, "message": "Invalid parameters - Your request is missing a required parameter"])
        }
        guard let listener = data.listener(name) else { return Self.nothingThere }
        return method == "user.getinfo" ? info(listener) : recentTracks(listener, query)
    }

    private func info(_ listener: DemoListeningData.Listener) -> HTTPResponse {
        let images = ["small", "medium", "large", "extralarge"].map { ["#text": "", "size": $0] }
        return Self.json(["user": [
            "name": listener.name, "realname": listener.realName, "homepage": "", "location": "", "image": images, "bio": "",
            "url": "https://libre.fm/user/\(listener.name)", "playcount": "\(data.playCount(of: listener, now: now))",
            "profile_created": Self.cTime(listener.since),
        ] as [String: Any]])
    }

    private func recentTracks(_ listener: DemoListeningData.Listener, _ query: [String: String]) -> HTTPResponse {
        let limit = query["limit"].flatMap { Int($0) } ?? 50
        let page = query["page"].flatMap { Int($0) } ?? 1
        // Far past any history: nothing there, as GNU FM finds.
        guard (1...10_000).contains(limit), (1...10_000_000).contains(page) else { return Self.nothingThere }
        // PHP takes "" and "0" for no bound.
        func bound(_ key: String) -> Date? {
            guard let text = query[key], !text.isEmpty, text != "0" else { return nil }
            return Date(timeIntervalSince1970: TimeInterval(Int(text) ?? 0))
        }
        let before = min(bound("to") ?? now, now)
        let scrobbles = data.listens(for: listener, before: before, after: bound("from"), count: page * limit).dropFirst((page - 1) * limit)
        guard !scrobbles.isEmpty else { return Self.nothingThere }
        var tracks = scrobbles.map { Self.track(artist: $0.artist, album: $0.album, at: $0.at) }
        if page == 1, let playing = listener.favourites.first {
            var track = Self.track(artist: playing.artist, album: playing.name, at: Int(now.timeIntervalSince1970))
            track["@attr"] = ["nowplaying": "true"]
            tracks.insert(track, at: 0)
        }
        let total = data.playCount(of: listener, now: now)
        return Self.json(["recenttracks": [
            "track": tracks.count == 1 ? tracks[0] as Any : tracks as Any,
            "@attr": ["user": listener.name, "page": "\(page)", "perPage": "\(limit)", "totalPages": "\((total + limit - 1) / limit)"],
        ] as [String: Any]])
    }

    /// GNU FM's "Invalid resource specified": an XML error element, as its JSON encoder writes it.
    private static let nothingThere = HTTPResponse(status: 200, body: Data(##"{"error":{"#text":"Invalid resource specified","code":"7"}}"##.utf8))

    private static func track(artist: String, album: String, at time: Int) -> [String: Any] {
        [
            "artist": ["#text": artist, "mbid": ""], "name": album, "mbid": "", "album": ["#text": album, "mbid": ""], "url": "",
            "date": ["#text": gmdate(time), "uts": "\(time)"], "streamable": "",
        ]
    }

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// PHP's `gmdate('d M Y H:i') . ' GMT'`.
    private static func gmdate(_ time: Int) -> String {
        let when = UTCDateTime(Date(timeIntervalSince1970: TimeInterval(time)))
        return "\(two(when.day)) \(months[when.month - 1]) \(when.year) \(two(when.hour)):\(two(when.minute)) GMT"
    }

    /// C's `strftime("%c")` in the C locale, `Tue Mar 14 12:00:00 2011`, in UTC.
    private static func cTime(_ date: Date) -> String {
        let when = UTCDateTime(date)
        let day = when.day < 10 ? " \(when.day)" : "\(when.day)"
        let second = Int(when.secondsIntoDay) % 60
        return "\(days[when.weekday - 1]) \(months[when.month - 1]) \(day) \(two(when.hour)):\(two(when.minute)):\(two(second)) \(when.year)"
    }

    private static func two(_ number: Int) -> String {
        number < 10 ? "0\(number)" : "\(number)"
    }

    private static func json(_ object: [String: Any]) -> HTTPResponse {
        HTTPResponse(status: 200, body: (try? JSONSerialization.data(withJSONObject: object)) ?? Data())
    }
}
