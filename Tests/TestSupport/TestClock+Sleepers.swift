import Clocks

extension TestClock where Duration == Swift.Duration {
    /// Yields until some task is suspended in `sleep` on this clock, so that a following
    /// `advance` reaches it. It polls the clock's state, it does not sleep; it gives up (and
    /// returns false) only if nothing sleeps within `limit` of real time.
    @discardableResult
    public func waitForSleeper(limit: Duration = .seconds(30)) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            do {
                try await checkSuspension()
            } catch {
                return true
            }
        }
        return false
    }
}
