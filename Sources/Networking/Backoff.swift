import Foundation

/// Exponential backoff with jitter and a bounded number of attempts: how every part of the
/// bot that waits before trying again decides how long (the client adaptors, the outbox, the
/// poller, start-up and the weekly scheduler), and, for all but the outbox, the loop that waits.
public struct RetryPolicy: Sendable, Equatable {
    /// Total tries, the first one included.
    public var maxAttempts: Int
    public var initialDelay: Duration
    public var maxDelay: Duration
    public var multiplier: Double
    /// Fraction of each delay that is randomised, 0 (none) to 1 (full jitter).
    public var jitter: Double

    public init(
        maxAttempts: Int = 4,
        initialDelay: Duration = .milliseconds(500),
        maxDelay: Duration = .seconds(30),
        multiplier: Double = 2,
        jitter: Double = 0.5
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.multiplier = multiplier
        self.jitter = min(max(jitter, 0), 1)
    }

    /// No retries at all.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// The wait before retry number `retry` (1 for the first retry).
    ///
    /// - Parameter random: a number in 0...1; tests pass a fixed one.
    public func delay(beforeRetry retry: Int, random: Double = Double.random(in: 0...1)) -> Duration {
        let exponent = Double(max(retry - 1, 0))
        let raw = initialDelay.seconds * pow(multiplier, exponent)
        let capped = min(raw, maxDelay.seconds)
        let jittered = capped * (1 - jitter * random)
        return .milliseconds(Int64((jittered * 1000).rounded()))
    }

    /// The wait before retry number `retry` of a call whose failure got `verdict`: the wait the
    /// service asked for, else the backoff; nil when the call must not go again (refused, or
    /// possibly done and not `repeatable`).
    public func wait(beforeRetry retry: Int, after verdict: SendVerdict, repeatable: Bool = true) -> Duration? {
        switch verdict {
        case .notSent(let serverWait): serverWait ?? delay(beforeRetry: retry)
        case .mayHaveBeenSent: repeatable ? delay(beforeRetry: retry) : nil
        case .refused: nil
        }
    }

    /// Runs `operation` until it succeeds; after a failure, sleeps for the wait `wait` names
    /// and tries again, while attempts remain and the task is not cancelled. A failure `wait`
    /// names no wait for is thrown, as is the last one when attempts run out. Cancelled while
    /// it sleeps, it throws the failure that ended the last attempt, so that the caller can
    /// tell what became of the call.
    ///
    /// - Parameters:
    ///   - sleep: how to wait: a clock's sleep, or one that something may end early.
    ///   - wait: the wait before another try after `error`, the `attempt`th failure; nil to give up.
    ///   - willRetry: told of each retry, with the attempt about to be made, for logs and metrics.
    public func run<T>(
        sleep: (Duration) async throws -> Void,
        wait: (_ error: any Error, _ attempt: Int) -> Duration?,
        willRetry: (_ error: any Error, _ attempt: Int, _ wait: Duration) -> Void = { _, _, _ in },
        _ operation: () async throws -> T
    ) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await operation()
            } catch {
                guard attempt < maxAttempts, !Task.isCancelled, let delay = wait(error, attempt) else { throw error }
                willRetry(error, attempt + 1, delay)
                let failure = error
                do { try await sleep(delay) } catch { throw failure }
                attempt += 1
            }
        }
    }
}
