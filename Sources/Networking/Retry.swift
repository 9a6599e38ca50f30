/// Runs `operation`, retrying while `delay` names a wait for the error and attempts remain.
///
/// The API clients' retry adaptors share this loop; each decides which errors are worth
/// another try and how long to wait (a policy's backoff, or a server's `retry_after`).
///
/// - Parameters:
///   - delay: the wait before retry number `attempt` after `error`, or nil to give up.
///   - willRetry: told about each retry, for logging.
public func withRetries<T>(
    policy: RetryPolicy,
    clock: ElapsedClock,
    delay: (_ error: any Error, _ attempt: Int) -> Duration?,
    willRetry: (_ error: any Error, _ attempt: Int, _ delay: Duration) -> Void = { _, _, _ in },
    operation: () async throws -> T
) async throws -> T {
    var attempt = 1
    while true {
        do {
            return try await operation()
        } catch {
            // A cancelled task does not retry: the error that ended its last attempt stands.
            guard attempt < policy.maxAttempts, !Task.isCancelled, let wait = delay(error, attempt) else { throw error }
            willRetry(error, attempt + 1, wait)
            // Cancelled while waiting: the error that ended the last attempt still stands, so
            // that callers can tell what became of the request.
            let failure = error
            do { try await clock.sleep(wait) } catch { throw failure }
            attempt += 1
        }
    }
}
