import Foundation
import Networking

// The JSON of `GET /1/user/{user}/listens`, read leniently: a field of the wrong type is
// treated as missing, and a listen that cannot be used is dropped, never the whole page.
// Only a body without its `payload` object is no page.

extension ListensPage: JSONReadable {
    /// Reads a page; throws `JSONNode.Malformed` only when `payload` is missing or no object
    /// (an object with a key that is not text is none, as for `JSONDecoder`).
    public init(json: JSONNode) throws {
        guard json.isReadableObject else { throw JSONNode.Malformed(description: "expected an object") }
        let payload = try json.required("payload") { $0.isReadableObject ? $0 : nil }
        // `listens` of another kind than an array is no listens, not a broken page.
        let entries = payload["listens"].flatMap { $0.isArray ? $0.elements : nil } ?? []
        // `user_id` echoes the request's spelling (api.py, get_listens); each listen carries
        // the stored one.
        let stored = entries.lazy.compactMap { $0.isReadableObject ? $0.nonEmptyString("user_name") : nil }.first
        self.init(
            user: stored ?? payload.nonEmptyString("user_id"),
            listens: entries.compactMap(Listen.init(entry:)),
            oldestListenTimestamp: payload.plausibleTime("oldest_listen_ts"),
            latestListenTimestamp: payload.plausibleTime("latest_listen_ts")
        )
    }
}

extension Listen {
    /// A listen, or nil when it has no usable time or artist.
    fileprivate init?(entry: JSONNode) {
        guard entry.isReadableObject, let time = entry.plausibleTime("listened_at"),
              let metadata = entry["track_metadata"], metadata.isReadableObject,
              let artist = metadata.nonEmptyString("artist_name")
        else { return nil }
        let mapping = metadata["mbid_mapping"].flatMap { $0.isReadableObject ? $0 : nil }
        let submitted = metadata["additional_info"].flatMap { $0.isReadableObject ? $0 : nil }
        self.init(
            listenedAt: time, artist: artist, release: metadata.nonEmptyString("release_name"),
            releaseMBID: mapping?.nonEmptyString("release_mbid") ?? submitted?.nonEmptyString("release_mbid"),
            coverArtID: mapping?["caa_id"]?.int64.flatMap { Int(exactly: $0) },
            coverArtReleaseMBID: mapping?.nonEmptyString("caa_release_mbid"), recordingMSID: entry.nonEmptyString("recording_msid")
        )
    }
}

extension JSONNode {
    /// Member `key` if it is a non-empty string; nil for anything else.
    fileprivate func nonEmptyString(_ key: StaticString) -> String? {
        guard let value = self[key]?.string, !value.isEmpty else { return nil }
        return value
    }

    /// Member `key` if it is a Unix time between 1970 and the year 5000, so that converting it
    /// can never overflow; nil for anything else.
    fileprivate func plausibleTime(_ key: StaticString) -> Int? {
        guard let value = self[key]?.int64, (1..<95_617_584_000).contains(value) else { return nil }
        return Int(value)
    }
}
