/// Keeps to a service's limit: every call reserves its moment in a shared `RequestPacer`
/// before it goes, first come, first served. When the service says its budget is spent (a
/// 429 with its wait, or an answer that says so) no call goes until that wait has passed.
public struct RateLimited: CallAdaptor {
    private let pacer: RequestPacer

    public init(pacer: RequestPacer) {
        self.pacer = pacer
    }

    public func call<Request: APIRequest>(_ request: Request, next: () async throws -> Request.Response) async throws -> Request.Response {
        try await pacer.next()
        do {
            let response = try await next()
            if let wait = request.holdOff(after: response) { pacer.holdOff(for: wait) }
            return response
        } catch let failure as any ServiceFailure {
            if let wait = failure.verdict.retryAfter { pacer.holdOff(for: wait) }
            throw failure
        }
    }
}

extension ServiceClient {
    /// At most `requests` calls in any `window`, and none while the service says to wait.
    public func rateLimited(requests: Int, per window: Duration, clock: any Clock<Duration> = ContinuousClock()) -> Adapted<Self, RateLimited> {
        adapted(by: RateLimited(pacer: RequestPacer(limit: requests, per: window, clock: ElapsedClock(clock))))
    }
}
