import Networking
import WeeklyCharts

/// The one client protocol. The HTTP client implements it, and so does every adaptor (the
/// generic ones, and the cache), each wrapping another client, so callers never know
/// which concerns are in the chain.
public protocol LastFMClient: ServiceClient {
    /// Performs one call. Throws `ListeningError` or `CancellationError`.
    func send<Response>(_ call: LastFMCall<Response>) async throws -> Response
}

extension LastFMCall: APIRequest {}

extension Adapted: LastFMClient where Base: LastFMClient {
    public func send<Response>(_ call: LastFMCall<Response>) async throws -> Response {
        try await adaptor.call(call) { try await base.send(call) }
    }
}

extension LastFMClient {
    /// Validates a name and returns the account in Last.fm's spelling.
    public func userInfo(_ user: String) async throws -> LastFMUser {
        try await send(.userInfo(user))
    }

    /// Every weekly range the user has, oldest first.
    public func weeklyChartList(user: String) async throws -> [WeeklyChartRange] {
        try await send(.weeklyChartList(user: user))
    }

    /// The album chart of one week.
    public func weeklyAlbumChart(user: String, range: WeeklyChartRange) async throws -> WeeklyAlbumChart {
        try await send(.weeklyAlbumChart(user: user, range: range))
    }

    /// One page of the user's friends.
    public func friends(user: String, page: Int = 1, limit: Int = 50) async throws -> FriendsPage {
        try await send(.friends(user: user, page: page, limit: limit))
    }

    /// All of the user's friends, page by page, stopping at `maxPages`.
    public func allFriends(user: String, maxPages: Int = 20) async throws -> [LastFMUser] {
        var result: [LastFMUser] = []
        var page = 1
        while page <= maxPages {
            let current = try await friends(user: user, page: page)
            result += current.friends
            guard page < current.totalPages, !current.friends.isEmpty else { break }
            page += 1
        }
        return result
    }

    /// Album details, for the cover image URL.
    public func albumInfo(artist: String, album: String) async throws -> AlbumInfo {
        try await send(.albumInfo(artist: artist, album: album))
    }
}
