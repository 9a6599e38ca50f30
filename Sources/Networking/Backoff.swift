import Foundation

/// Exponential backoff with jitter and a bounded number of attempts.
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
}
