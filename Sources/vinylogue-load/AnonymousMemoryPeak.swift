/// The peak of a child's anonymous resident memory (`RssAnon`) over a stretch of time,
/// sampled every 20 ms: the kernel keeps a high-water mark only for the whole resident set
/// (`VmHWM`), file pages included, so the anonymous peak has to be caught by sampling.
struct AnonymousMemoryPeak {
    private let sampling: Task<Int, Never>

    /// Starts sampling `child` now.
    init(of child: ChildProcess, every interval: Duration = .milliseconds(20)) {
        sampling = Task {
            var peak = 0
            while !Task.isCancelled {
                peak = max(peak, child.anonymousBytes ?? 0)
                try? await Task.sleep(for: interval)
            }
            return max(peak, child.anonymousBytes ?? 0)
        }
    }

    /// Stops sampling and returns the highest sample, in bytes (0 if the child was gone).
    func stop() async -> Int {
        sampling.cancel()
        return await sampling.value
    }
}
