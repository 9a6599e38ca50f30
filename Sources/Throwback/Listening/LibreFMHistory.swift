import Foundation
import LastFM

/// Libre.fm as a listening source. It speaks Last.fm's 2.0 protocol, but its server (GNU FM)
/// has no weekly chart methods, so a week is built from `user.getRecentTracks` with `from`
/// and `to`, page by page, and the weeks with data run from the account's registration (or,
/// without one, its first scrobble) to now. Wrap it in `CachedListeningHistory`.
public struct LibreFMHistory: ListeningHistory {
    /// Libre.fm's own API root.
    public static let defaultBaseURL = URL(string: "https://libre.fm/2.0/")!
    /// Scrobbles per page: Last.fm's largest, which GNU FM accepts too.
    static let pageSize = 200
    /// A bound on the pages one week may cost, whatever the server says its total is.
    static let maxPages = 100

    private let client: any LastFMClient
    private let now: @Sendable () -> Date

    /// - Parameter client: a Last.fm protocol client for `LIBREFM_API_URL`, with its own adaptors.
    public init(client: any LastFMClient, now: @escaping @Sendable () -> Date = Date.init) {
        self.client = client
        self.now = now
    }

    public func account(_ name: String) async throws -> String {
        try await libreFM { try await userInfo(name).name }
    }

    public func weeks(of user: String) async throws -> [WeeklyChartRange] {
        try await libreFM {
            let now = now()
            guard let first = try await firstScrobble(of: user), first <= now else { return [] }
            var weeks: [WeeklyChartRange] = []
            // A registration before 1970 is no date: the weeks start no earlier, so they stay few.
            var start = LastFMWeek.start(of: max(first, Date(timeIntervalSince1970: 0)))
            while start <= now {
                weeks.append(WeeklyChartRange(from: start, to: start.addingTimeInterval(LastFMWeek.length)))
                start = start.addingTimeInterval(LastFMWeek.length)
            }
            return weeks
        }
    }

    public func albumChart(of user: String, in range: WeeklyChartRange) async throws -> WeeklyAlbumChart {
        try await libreFM {
            var tally = AlbumTally()
            var page = 1
            while page <= Self.maxPages {
                guard let current = try await recentTracks(user: user, range: range, page: page, limit: Self.pageSize) else { break }
                // The track playing now has no time; a server ignoring from/to sends others.
                for track in current.tracks {
                    guard let played = track.playedAt, range.contains(played) else { continue }
                    tally.add(artist: track.artist, album: track.album, cover: track.coverURL)
                }
                guard page < current.totalPages, !current.tracks.isEmpty else { break }
                page += 1
            }
            return WeeklyAlbumChart(user: user, range: range, albums: tally.chart())
        }
    }

    /// When the account began: `user.getInfo`'s registration, else the oldest scrobble (the
    /// last page of recent tracks, one to a page).
    private func firstScrobble(of user: String) async throws -> Date? {
        if let registered = try await userInfo(user).registered { return registered }
        let all = WeeklyChartRange(from: Date(timeIntervalSince1970: 0), to: now())
        guard let first = try await recentTracks(user: user, range: all, page: 1, limit: 1) else { return nil }
        guard first.totalPages > 1 else { return first.tracks.first?.playedAt }
        let last = try await recentTracks(user: user, range: all, page: min(first.totalPages, 10_000_000), limit: 1)
        return last?.tracks.last?.playedAt
    }

    /// GNU FM's error 7, "Invalid resource specified", is its only way to say that a user does
    /// not exist (`user.getInfo`), or that a page of recent tracks is empty.
    private static let invalidResource = 7

    private func userInfo(_ name: String) async throws -> LastFMUser {
        do {
            return try await client.userInfo(name)
        } catch LastFMError.rejected(code: Self.invalidResource, _) {
            throw LastFMError.userNotFound(name)
        }
    }

    /// A page of scrobbles, or nil when GNU FM says it has none.
    private func recentTracks(user: String, range: WeeklyChartRange, page: Int, limit: Int) async throws -> RecentTracksPage? {
        do {
            return try await client.send(.recentTracks(user: user, range: range, page: page, limit: limit))
        } catch LastFMError.rejected(code: Self.invalidResource, _) {
            return nil
        }
    }

    /// Runs a call, naming Libre.fm in its failures.
    private func libreFM<T>(_ work: () async throws -> T) async throws -> T {
        do {
            return try await work()
        } catch let error as LastFMError {
            throw LibreFMError(error)
        }
    }
}

/// A Libre.fm failure: Last.fm's protocol errors, told as Libre.fm's.
public struct LibreFMError: ListeningSourceFailure, Equatable {
    /// The protocol error as the Last.fm client read it.
    public let underlying: LastFMError

    public init(_ underlying: LastFMError) {
        self.underlying = underlying
    }

    public var userMessage: String {
        switch underlying {
        case .userNotFound(let name): "No Libre.fm user is called “\(name)”."
        case .privateProfile(let name): "\(name) keeps their Libre.fm listening data private."
        case .rejected(_, let message): "Libre.fm refused the request: \(message.isEmpty ? "no reason given" : String(message.prefix(200)))."
        case .invalidKey: "Libre.fm refused the bot’s key."
        case .rateLimited, .temporarilyUnavailable, .transport, .undecodable: "Libre.fm is not answering just now. Try again in a minute."
        }
    }

    public var unknownName: String? { underlying.unknownName }
    public var isPrivateProfile: Bool { underlying.isPrivateProfile }
}
