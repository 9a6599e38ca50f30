/// Feeds a `CircuitBreaker` from the calls it passes through, and refuses calls while it is
/// open, so that an outage costs each caller one quick answer. A refusal is an answer from a
/// healthy service; any other failure of the service counts against it. Place it under a
/// cache, so that cached answers are served even while the service is down.
public struct CircuitBreaking: CallAdaptor {
    private let breaker: CircuitBreaker
    private let whenOpen: any Error

    /// - Parameter whenOpen: what a call refused by the open breaker throws.
    public init(breaker: CircuitBreaker, whenOpen: any Error) {
        self.breaker = breaker
        self.whenOpen = whenOpen
    }

    public func call<Request: APIRequest>(_ request: Request, next: () async throws -> Request.Response) async throws -> Request.Response {
        guard breaker.permit() else { throw whenOpen }
        do {
            let response = try await next()
            breaker.recordSuccess()
            return response
        } catch let failure as any ServiceFailure {
            if failure.verdict.isRefusal { breaker.recordSuccess() } else { breaker.recordFailure() }
            throw failure
        } catch {
            breaker.recordAbandoned()
            throw error
        }
    }
}

extension ServiceClient {
    /// Reports every outcome to `breaker` and fails fast, with `whenOpen`, while it is open.
    public func circuitBroken(by breaker: CircuitBreaker, whenOpen: any Error) -> Adapted<Self, CircuitBreaking> {
        adapted(by: CircuitBreaking(breaker: breaker, whenOpen: whenOpen))
    }
}
