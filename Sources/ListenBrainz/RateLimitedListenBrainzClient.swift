import Networking

/// Keeps to ListenBrainz's limit two ways: every request reserves its moment in a shared
/// `RequestPacer` (the same reservation as Last.fm's), and when ListenBrainz says its budget
/// is spent (`X-RateLimit-Remaining: 0`, or a 429) no request goes until `X-RateLimit-Reset-In`
/// has passed.
public struct RateLimitedListenBrainzClient: ListenBrainzClient {
    /// The longest wait a server's header can impose: a wild value must not stall the bot for days.
    static let longestHoldOff = 120

    private let base: any ListenBrainzClient
    private let pacer: RequestPacer

    public init(base: any ListenBrainzClient, pacer: RequestPacer) {
        self.base = base
        self.pacer = pacer
    }

    public func listens(_ request: ListensRequest) async throws -> ListensPage {
        try await pacer.next()
        do {
            let page = try await base.listens(request)
            if let limit = page.rateLimit, let remaining = limit.remaining, remaining <= 0 {
                pacer.holdOff(for: Self.wait(limit.resetIn))
            }
            return page
        } catch ListenBrainzError.rateLimited(let resetIn) {
            pacer.holdOff(for: Self.wait(resetIn))
            throw ListenBrainzError.rateLimited(resetIn: resetIn)
        }
    }

    /// `X-RateLimit-Reset-In` as a wait: at least a second (none sent means "soon"), at most two minutes.
    public static func wait(_ resetIn: Int?) -> Duration {
        .seconds(min(max(resetIn ?? 1, 1), longestHoldOff))
    }
}

extension ListenBrainzClient {
    /// At most `requests` requests in any `window`, and none while ListenBrainz says to wait.
    public func rateLimited(
        requests: Int = 10, per window: Duration = .seconds(10), clock: any Clock<Duration> = ContinuousClock()
    ) -> RateLimitedListenBrainzClient {
        RateLimitedListenBrainzClient(base: self, pacer: RequestPacer(limit: requests, per: window, clock: ElapsedClock(clock)))
    }
}
