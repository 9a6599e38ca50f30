import Foundation

// The JSON of `GET /1/user/{user}/listens`, decoded leniently: a field of the wrong type is
// treated as missing, and a listen that cannot be used is dropped, never the whole page.

struct ListensBody: Decodable {
    var page: ListensPage

    private enum Root: String, CodingKey { case payload }
    private enum Payload: String, CodingKey {
        case listens, user = "user_id", oldest = "oldest_listen_ts", latest = "latest_listen_ts"
    }

    init(from decoder: any Decoder) throws {
        let root = try decoder.container(keyedBy: Root.self)
        let payload = try root.nestedContainer(keyedBy: Payload.self, forKey: .payload)
        let entries = (try? payload.decodeIfPresent([ListenEntry].self, forKey: .listens)) ?? nil
        // `user_id` echoes the request's spelling (api.py, get_listens); each listen carries
        // the stored one.
        let stored = entries?.lazy.compactMap(\.userName).first
        page = ListensPage(
            user: stored ?? payload.string(.user),
            listens: (entries ?? []).compactMap(\.listen),
            oldestListenTimestamp: payload.plausibleTime(.oldest),
            latestListenTimestamp: payload.plausibleTime(.latest)
        )
    }
}

/// A listen, or nil when it has no usable time or artist; and whose listen it is.
private struct ListenEntry: Decodable {
    var listen: Listen?
    var userName: String?

    private enum Keys: String, CodingKey {
        case listenedAt = "listened_at", metadata = "track_metadata", userName = "user_name", msid = "recording_msid"
    }
    private enum Metadata: String, CodingKey {
        case artist = "artist_name", release = "release_name", mapping = "mbid_mapping", info = "additional_info"
    }
    private enum Mapping: String, CodingKey {
        case releaseMBID = "release_mbid", caaID = "caa_id", caaReleaseMBID = "caa_release_mbid"
    }

    init(from decoder: any Decoder) throws {
        guard let c = try? decoder.container(keyedBy: Keys.self) else { return }
        userName = c.string(.userName)
        guard let time = c.plausibleTime(.listenedAt),
              let metadata = try? c.nestedContainer(keyedBy: Metadata.self, forKey: .metadata),
              let artist = metadata.string(.artist)
        else { return }
        let mapping = try? metadata.nestedContainer(keyedBy: Mapping.self, forKey: .mapping)
        let submitted = try? metadata.nestedContainer(keyedBy: Mapping.self, forKey: .info)
        listen = Listen(
            listenedAt: time, artist: artist, release: metadata.string(.release),
            releaseMBID: mapping?.string(.releaseMBID) ?? submitted?.string(.releaseMBID),
            coverArtID: (try? mapping?.decodeIfPresent(Int.self, forKey: .caaID)) ?? nil,
            coverArtReleaseMBID: mapping?.string(.caaReleaseMBID), recordingMSID: c.string(.msid)
        )
    }
}

extension KeyedDecodingContainer {
    /// A non-empty string, or nil for anything else.
    fileprivate func string(_ key: Key) -> String? {
        guard let value = (try? decodeIfPresent(String.self, forKey: key)) ?? nil, !value.isEmpty else { return nil }
        return value
    }

    /// A Unix time between 1970 and the year 5000, so that converting it can never overflow.
    fileprivate func plausibleTime(_ key: Key) -> Int? {
        guard let value = (try? decodeIfPresent(Int.self, forKey: key)) ?? nil, (1..<95_617_584_000).contains(value) else { return nil }
        return value
    }
}
