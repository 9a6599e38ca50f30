import Foundation
import LastFM
import Networking
import WeeklyCharts

/// Libre.fm's weeks and charts. It speaks Last.fm's 2.0 protocol, but its server (GNU FM)
/// has no weekly chart methods, so a week is built from `user.getRecentTracks` with `from`
/// and `to`, page by page, and the weeks with data run from the account's creation (or,
/// without one, its first scrobble) to now.
///
/// GNU FM answers an empty page, an unknown user and a page past the last one alike, with
/// error 7 (UserXML.php, getRecentTracks), and its `totalPages` counts every scrobble of the
/// user, not the range's: so a page that is not full ends a week, error 7 after page 1 ends it
/// too, and error 7 on page 1 is told apart by asking `user.getInfo` once.
public struct LibreFMClient: Sendable {
    /// Libre.fm's own API root.
    public static let defaultBaseURL = URL(string: "https://libre.fm/2.0/")!
    /// Scrobbles per page: Last.fm's largest; GNU FM sets no limit.
    static let pageSize = 200
    /// A bound on the pages one week may cost, whatever the server answers.
    static let maxPages = 100
    /// GNU FM's "Invalid resource specified": no such user, or no scrobble on that page.
    static let nothingThere = 7

    private let client: any LastFMClient
    private let now: @Sendable () -> Date

    /// - Parameter client: a Last.fm protocol client for `LIBREFM_API_URL`, with its own
    ///   adaptors, whose errors name Libre.fm.
    public init(client: any LastFMClient, now: @escaping @Sendable () -> Date = Date.init) {
        self.client = client
        self.now = now
    }

    public func account(_ name: String) async throws -> String {
        try await userInfo(name).name
    }

    public func weeks(of user: String) async throws -> [WeeklyChartRange] {
        let now = now()
        guard let first = try await firstScrobble(of: user), first <= now else { return [] }
        var weeks: [WeeklyChartRange] = []
        // A first scrobble before 1970 is no date: the weeks start no earlier, so they stay few.
        var start = LastFMWeek.start(of: max(first, Date(timeIntervalSince1970: 0)))
        while start <= now {
            weeks.append(WeeklyChartRange(from: start, to: start.addingTimeInterval(LastFMWeek.length)))
            start = start.addingTimeInterval(LastFMWeek.length)
        }
        return weeks
    }

    public func albumChart(of user: String, in range: WeeklyChartRange) async throws -> WeeklyAlbumChart {
        var tally = AlbumTally()
        for page in 1...Self.maxPages {
            guard let current = try await recentTracks(of: user, in: range, page: page) else {
                // Nothing on page 1: an empty week, unless there is no such user.
                if page == 1 { _ = try await userInfo(user) }
                break
            }
            // The track playing now, first on page 1 whatever the range, is no play.
            let plays = current.tracks.compactMap { track in track.playedAt.map { (track, $0) } }
            for (track, played) in plays where range.contains(played) {
                tally.add(artist: track.artist, album: track.album, cover: track.coverURL)
            }
            guard plays.count >= Self.pageSize else { break }
        }
        return WeeklyAlbumChart(user: user, range: range, albums: tally.chart())
    }

    /// One page of scrobbles, newest first; nil when GNU FM says there is none (error 7).
    private func recentTracks(of user: String, in range: WeeklyChartRange?, page: Int, limit: Int = pageSize) async throws -> RecentTracksPage? {
        do {
            return try await client.send(.recentTracks(user: user, range: range, page: page, limit: limit))
        } catch let error as ListeningError where error.rejectionCode == Self.nothingThere {
            return nil
        }
    }

    /// `user.getInfo`; GNU FM's error 7 there means there is no such user.
    private func userInfo(_ user: String) async throws -> LastFMUser {
        do {
            return try await client.userInfo(user)
        } catch let error as ListeningError where error.rejectionCode == Self.nothingThere {
            throw ListeningError(error.service, .userNotFound(user))
        }
    }

    /// When the account began: `user.getInfo`'s `profile_created` when it reads as a date, else
    /// the oldest scrobble, the last page of all scrobbles one to a page (the one place where
    /// `totalPages`, which counts them all, helps). Nil for an account without scrobbles.
    private func firstScrobble(of user: String) async throws -> Date? {
        if let created = try await userInfo(user).registered { return created }
        guard let newest = try await recentTracks(of: user, in: nil, page: 1, limit: 1) else { return nil }
        let oldest = newest.totalPages > 1 ? try await recentTracks(of: user, in: nil, page: min(newest.totalPages, 10_000_000), limit: 1) : nil
        // The count GNU FM keeps may lag behind deletions; then the newest scrobble must do.
        return (oldest ?? newest).tracks.last { $0.playedAt != nil }?.playedAt
    }
}
