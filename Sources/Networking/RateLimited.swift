import Synchronization

/// Keeps to a service's limit, at most `limit` calls in any `window`: each call reserves the
/// first free moment in a `RateWindow` the callers share, first come, first served, and waits
/// for it. When the service says its budget is spent (a 429 with its wait, or an answer that
/// says so) no call goes until that wait has passed: the service is believed over the estimate.
/// Cancelling a wait gives nothing back: the slot passes unused, which only errs on the side
/// of the limit.
///
/// Background calls (`RequestPriority.background`) reserve nothing ahead: each waits until it
/// can go at once while half the window's budget stays free, so an interactive call never
/// queues behind one, and finds a slot at once unless other interactive calls hold them.
public final class RateLimited: CallAdaptor {
    private struct State {
        var window: RateWindow
        /// No slot is given before this moment: the service said its budget is spent.
        var notBefore: Duration = .zero
    }

    private let state: Mutex<State>
    private let clock: ElapsedClock

    public init(limit: Int, per window: Duration, clock: ElapsedClock) {
        self.state = Mutex(State(window: RateWindow(limit: limit, window: window)))
        self.clock = clock
    }

    public func call<Request: APIRequest>(_ request: Request, next: () async throws -> Request.Response) async throws -> Request.Response {
        if RequestPriority.current == .background {
            try await waitForSpareSlot()
        } else {
            let now = clock.elapsed()
            let at = state.withLock { $0.window.reserve(now: max(now, $0.notBefore)) }
            if at > now { try await clock.sleep(at - now) }
        }
        do {
            let response = try await next()
            if let wait = request.holdOff(after: response) { holdOff(for: wait) }
            return response
        } catch let failure as any ServiceFailure {
            if let wait = failure.verdict.retryAfter { holdOff(for: wait) }
            throw failure
        }
    }

    /// Takes a slot for a background call once one is free now and as many again as it leaves
    /// in use stay free: interactive calls keep at least half the budget.
    private func waitForSpareSlot() async throws {
        while true {
            let now = clock.elapsed()
            let wait: Duration? = state.withLock { state in
                let spare = (state.window.limit - 1) / 2 + 2
                let free = max(state.window.earliest(now: now, count: min(spare, state.window.limit)), state.notBefore)
                guard free <= now else { return free - now }
                state.window.commit(at: now)
                return nil
            }
            guard let wait else { return }
            try await clock.sleep(wait)
        }
    }

    private func holdOff(for wait: Duration) {
        let until = clock.elapsed() + max(wait, .zero)
        state.withLock { $0.notBefore = max($0.notBefore, until) }
    }
}

extension ServiceClient {
    /// At most `requests` calls in any `window`, and none while the service says to wait.
    public func rateLimited(requests: Int, per window: Duration, clock: any Clock<Duration> = ContinuousClock()) -> Adapted<Self, RateLimited> {
        adapted(by: RateLimited(limit: requests, per: window, clock: ElapsedClock(clock)))
    }
}
