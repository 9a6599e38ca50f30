import Foundation
import Networking
import WeeklyCharts

/// The demo's ListenBrainz, answering `GET /1/user/{user}/listens` as listenbrainz-server does:
/// `max_ts` and `min_ts` exclusive, newest first (with `min_ts`, the oldest `count` after it),
/// `count` at most 1000, names found whatever their case (`user_id` repeats the URL's, each
/// listen's `user_name` is the stored one), 404 for an unknown user.
struct DemoListenBrainz {
    let data: DemoListeningData
    let now: Date

    func answer(_ url: URL, query: [String: String]) -> HTTPResponse {
        let name = url.deletingLastPathComponent().lastPathComponent
        guard let listener = data.listenBrainzListener(name) else {
            return HTTPResponse(status: 404, body: Data(#"{"code": 404, "error": "Cannot find user: \#(name)"}"#.utf8))
        }
        let count = min(max(Int(query["count"] ?? "") ?? 25, 1), 1000)
        let maxTimestamp = query["max_ts"].flatMap(Int.init), minTimestamp = query["min_ts"].flatMap(Int.init)
        if let maxTimestamp, let minTimestamp, maxTimestamp <= minTimestamp {
            return HTTPResponse(status: 400, body: Data(#"{"code": 400, "error": "max_ts should be greater than min_ts"}"#.utf8))
        }
        let before = maxTimestamp.map { min(Date(timeIntervalSince1970: TimeInterval($0)), now) } ?? now
        let listens: ArraySlice<(at: Int, artist: String, album: String)>
        if let minTimestamp {
            let after = Date(timeIntervalSince1970: TimeInterval(minTimestamp))
            listens = data.listens(for: listener, before: before, after: after, count: .max).suffix(count)
        } else {
            listens = data.listens(for: listener, before: before, count: count)[...]
        }
        let objects = listens.map { listen -> [String: Any] in
            [
                "listened_at": listen.at, "inserted_at": listen.at, "user_name": listener.name,
                "recording_msid": Self.msid(listener.name, listen.at, listen.album),
                "track_metadata": ["artist_name": listen.artist, "release_name": listen.album, "track_name": listen.album],
            ]
        }
        let latest = data.listens(for: listener, before: now, count: 1).first?.at ?? 0
        let object: [String: Any] = ["payload": [
            "count": objects.count, "user_id": name, "listens": objects,
            "oldest_listen_ts": Int(LastFMWeek.start(of: listener.since).timeIntervalSince1970) + 3600, "latest_listen_ts": latest,
        ] as [String: Any]]
        return HTTPResponse(status: 200, body: (try? JSONSerialization.data(withJSONObject: object)) ?? Data())
    }

    /// A stable id in the shape of a UUID, from what the listen is.
    private static func msid(_ user: String, _ time: Int, _ album: String) -> String {
        var random = SeededRandom(seed: "\(user)|\(time)|\(album)")
        let hex = String(random.next(), radix: 16) + String(random.next(), radix: 16)
        let digits = Array(String(repeating: "0", count: max(0, 32 - hex.count)) + hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(digits[$0]) }.joined(separator: "-")
    }
}
