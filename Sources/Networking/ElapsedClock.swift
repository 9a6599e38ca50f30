/// A `Clock` reduced to what rate limits and retries need, so that they can hold any clock
/// (`ContinuousClock` in production, `TestClock` in tests) without becoming generic.
public struct ElapsedClock: Sendable {
    /// Time passed since this value was made.
    public let elapsed: @Sendable () -> Duration
    /// Suspends for a duration on the underlying clock; throws on cancellation.
    public let sleep: @Sendable (Duration) async throws -> Void

    public init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let start = clock.now
        elapsed = { start.duration(to: clock.now) }
        sleep = { duration in try await clock.sleep(for: duration) }
    }

    /// The real monotonic clock.
    public static var continuous: ElapsedClock { ElapsedClock(ContinuousClock()) }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    public var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
