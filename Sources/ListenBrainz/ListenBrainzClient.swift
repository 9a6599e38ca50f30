import Networking

/// The one ListenBrainz client protocol. The HTTP client implements it, and so does every
/// adaptor (retry, rate limit, circuit breaker), each wrapping another client, as for Last.fm.
///
/// ListenBrainz has no chart for an arbitrary past week (its statistics take only preset
/// ranges), so the bot reads raw listens, newest first, and builds the week itself
/// (`ListenBrainzClient.albumChart`).
public protocol ListenBrainzClient: ServiceClient {
    /// One page of a user's listens. Throws `ListeningError` or `CancellationError`.
    func listens(_ request: ListensRequest) async throws -> ListensPage
}

extension Adapted: ListenBrainzClient where Base: ListenBrainzClient {
    public func listens(_ request: ListensRequest) async throws -> ListensPage {
        try await adaptor.call(request) { try await base.listens(request) }
    }
}

/// `GET /1/user/{user}/listens?max_ts=…&min_ts=…&count=…`: the newest listens before
/// `maxTimestamp`; with `minTimestamp`, the oldest after it, still newest first. Both bounds
/// are exclusive.
public struct ListensRequest: Sendable, Hashable {
    /// The most listens ListenBrainz returns in one page.
    public static let maxCount = 1000

    public var user: String
    /// Only listens strictly before this Unix time; nil for the newest.
    public var maxTimestamp: Int?
    /// Only listens strictly after this Unix time. ListenBrainz then takes the oldest `count`
    /// of them instead of the newest.
    public var minTimestamp: Int?
    /// Listens in the page, 1…1000.
    public var count: Int

    public init(user: String, maxTimestamp: Int? = nil, minTimestamp: Int? = nil, count: Int = ListensRequest.maxCount) {
        self.user = user
        self.maxTimestamp = maxTimestamp
        self.minTimestamp = minTimestamp
        self.count = min(max(count, 1), Self.maxCount)
    }
}

extension ListensRequest: APIRequest {
    public var method: String { "listens" }

    /// An answer that says the budget is spent (`X-RateLimit-Remaining: 0`) holds every request
    /// until `X-RateLimit-Reset-In` has passed.
    public func holdOff(after page: ListensPage) -> Duration? {
        guard let limit = page.rateLimit, let remaining = limit.remaining, remaining <= 0 else { return nil }
        return ListenBrainzRateLimit.wait(limit.resetIn)
    }
}
