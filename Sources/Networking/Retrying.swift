import Logging

/// Retries what its service says may go again (`SendVerdict`): after the wait the service
/// asked for, else with the policy's backoff. A call that may have arrived goes again only if
/// it is repeatable (once beats twice), a refusal never does, and no wait takes a call past
/// its `patience`. Cancellation, and errors that are no service's, pass straight through.
public struct Retrying: CallAdaptor {
    private let policy: RetryPolicy
    private let api: String
    private let clock: ElapsedClock
    private let logger: Logger
    private let metrics: BotMetrics

    /// - Parameter api: the service's name in `vinylogue_retries_total{api}` and the log.
    public init(policy: RetryPolicy, api: String, clock: ElapsedClock, logger: Logger, metrics: BotMetrics = .none) {
        self.policy = policy
        self.api = api
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
    }

    public func call<Request: APIRequest>(_ request: Request, next: () async throws -> Request.Response) async throws -> Request.Response {
        let started = request.patience == nil ? .zero : clock.elapsed()
        return try await policy.run(
            sleep: clock.sleep,
            wait: { error, attempt in
                guard let failure = error as? any ServiceFailure,
                      let wait = policy.wait(beforeRetry: attempt, after: failure.verdict, repeatable: request.isRepeatable)
                else { return nil }
                if let patience = request.patience, clock.elapsed() - started + wait > patience { return nil }
                return wait
            },
            willRetry: { [api, metrics, logger] error, attempt, wait in
                metrics.increment("vinylogue_retries_total", [("api", api)])
                logger.info("retrying a call", metadata: [
                    "api": "\(api)", "method": "\(request.method)", "attempt": "\(attempt)", "delay": "\(wait)", "error": "\(error)",
                ])
            },
            next
        )
    }
}

extension ServiceClient {
    /// Retries what may go again with `policy`, waiting on `clock`.
    public func retrying(
        _ policy: RetryPolicy = RetryPolicy(), api: String, clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "retry"), metrics: BotMetrics = .none
    ) -> Adapted<Self, Retrying> {
        adapted(by: Retrying(policy: policy, api: api, clock: ElapsedClock(clock), logger: logger, metrics: metrics))
    }
}
