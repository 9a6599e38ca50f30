/// Counts every call that reaches it, by method and result (`ok`, or the failure's kind), in
/// `vinylogue_<api>_requests_total`. Place it right above the HTTP client, so that each retry
/// counts as the request it is.
public struct Instrumented: CallAdaptor {
    /// The counter's name, made once rather than per call.
    private let counter: String
    private let metrics: BotMetrics

    public init(api: String, metrics: BotMetrics) {
        self.counter = "vinylogue_\(api)_requests_total"
        self.metrics = metrics
    }

    public func call<Request: APIRequest>(_ request: Request, next: () async throws -> Request.Response) async throws -> Request.Response {
        do {
            let response = try await next()
            metrics.increment(counter, [("method", request.method), ("result", "ok")])
            return response
        } catch let failure as any ServiceFailure {
            metrics.increment(counter, [("method", request.method), ("result", failure.kind)])
            throw failure
        }
    }
}

extension ServiceClient {
    /// Counts calls by method and result under `api`'s name.
    public func instrumented(api: String, _ metrics: BotMetrics) -> Adapted<Self, Instrumented> {
        adapted(by: Instrumented(api: api, metrics: metrics))
    }
}
