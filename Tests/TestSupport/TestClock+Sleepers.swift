import Clocks

extension TestClock where Duration == Swift.Duration {
    /// Yields until some task is suspended in `sleep` on this clock, so that a following
    /// `advance` reaches it. Returns `false` if nothing sleeps after many yields.
    @discardableResult
    public func waitForSleeper(maxYields: Int = 100_000) async -> Bool {
        for _ in 0..<maxYields {
            do {
                try await checkSuspension()
            } catch {
                return true
            }
        }
        return false
    }
}
