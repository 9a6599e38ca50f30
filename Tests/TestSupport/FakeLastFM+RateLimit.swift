import Foundation
import Networking

extension FakeLastFM {
    /// Refuses every API request beyond `requests` in any `window`, measured on `clock` (the
    /// clock the bot under test waits on), as Last.fm does: its documented error 29, "Rate
    /// limit exceeded", here with HTTP 429. Only answered requests count.
    public func limitRate(_ requests: Int, per window: Duration, clock: any Clock<Duration>) {
        rateLimit = (requests, window, ElapsedClock(clock).elapsed)
        answeredAt = []
    }

    /// Error 29 for a request beyond the rate limit; nil (and the request counted) otherwise.
    func rateLimitRefusal() -> FakeResponse? {
        guard let rateLimit else { return nil }
        let now = rateLimit.elapsed()
        answeredAt.removeAll { now - $0 >= rateLimit.window }
        guard answeredAt.count < rateLimit.requests else {
            rateLimitRefusals += 1
            return .json(#"{"error": 29, "message": "Rate Limit Exceeded"}"#, status: 429)
        }
        answeredAt.append(now)
        return nil
    }
}
