import Foundation
import Networking

/// One page of listens, as `GET /1/user/{user}/listens` answers it.
public struct ListensPage: Sendable, Equatable {
    /// The user in ListenBrainz's spelling: a listen's `user_name`. `user_id` only repeats the
    /// name as the request wrote it, so it stands in only when the page has no listen.
    public var user: String?
    /// Newest first.
    public var listens: [Listen]
    /// The user's first and last listen ever, Unix times; nil for a user with none.
    public var oldestListenTimestamp: Int?
    public var latestListenTimestamp: Int?
    /// What the rate-limit headers said of this response, if anything.
    public var rateLimit: ListenBrainzRateLimit?

    public init(
        user: String?, listens: [Listen], oldestListenTimestamp: Int?, latestListenTimestamp: Int?,
        rateLimit: ListenBrainzRateLimit? = nil
    ) {
        self.user = user
        self.listens = listens
        self.oldestListenTimestamp = oldestListenTimestamp
        self.latestListenTimestamp = latestListenTimestamp
        self.rateLimit = rateLimit
    }

    /// Reads a response body (see `init(json:)`). A listen that cannot be read, or whose time
    /// is not between 1970 and the year 5000, is left out rather than failing the page.
    public static func decode(_ data: Data) throws -> ListensPage {
        try ListensPage(json: JSONNode(answer: data))
    }
}

/// One listen, reduced to what a week's album chart needs.
public struct Listen: Sendable, Equatable {
    /// Unix time.
    public var listenedAt: Int
    /// ListenBrainz's id of what was heard: with `listenedAt`, it tells one listen from another.
    public var recordingMSID: String?
    public var artist: String
    /// The album; nil or empty for a listen with no release.
    public var release: String?
    /// MusicBrainz release id, from the mapping (or what the player submitted).
    public var releaseMBID: String?
    /// The Cover Art Archive image id and the release it belongs to, from the mapping.
    public var coverArtID: Int?
    public var coverArtReleaseMBID: String?

    public init(
        listenedAt: Int, artist: String, release: String?, releaseMBID: String? = nil, coverArtID: Int? = nil,
        coverArtReleaseMBID: String? = nil, recordingMSID: String? = nil
    ) {
        self.listenedAt = listenedAt
        self.recordingMSID = recordingMSID
        self.artist = artist
        self.release = release
        self.releaseMBID = releaseMBID
        self.coverArtID = coverArtID
        self.coverArtReleaseMBID = coverArtReleaseMBID
    }
}

/// `X-RateLimit-Remaining` and `X-RateLimit-Reset-In`.
public struct ListenBrainzRateLimit: Sendable, Equatable {
    /// Requests left in the current window.
    public var remaining: Int?
    /// Seconds until the window resets.
    public var resetIn: Int?

    public init(remaining: Int?, resetIn: Int?) {
        self.remaining = remaining
        self.resetIn = resetIn
    }

    /// From response headers (names lowercased); nil when neither is there or readable.
    public init?(headers: [String: String]) {
        let remaining = headers["x-ratelimit-remaining"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        let resetIn = headers["x-ratelimit-reset-in"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard remaining != nil || resetIn != nil else { return nil }
        self.init(remaining: remaining, resetIn: resetIn)
    }

    /// The header names to ask the transport for.
    public static let headerNames = ["X-RateLimit-Remaining", "X-RateLimit-Reset-In"]

    /// The longest wait a server's header can impose: a wild value must not stall the bot for days.
    static let longestWait = 120

    /// `X-RateLimit-Reset-In` as a wait: at least a second (none sent means "soon"), at most two minutes.
    public static func wait(_ resetIn: Int?) -> Duration {
        .seconds(min(max(resetIn ?? 1, 1), longestWait))
    }
}
