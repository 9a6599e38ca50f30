import Foundation

/// `throwbacks --compare REF`: this checkout's binary and REF's, measured in the same run,
/// alternating (current, REF, current, REF, …), and compared by the median of the rounds.
///
/// The machine these run on is shared and noisy, so absolute figures drift from run to
/// run; alternating the two makes any drift hit both alike, and only their ratio is worth
/// reporting.
struct Comparison {
    var current: URL
    var ref: String
    var refBinary: URL
    var updates: Int
    var warmUp: Int
    var rounds: Int
    var covers: Bool
    var environment: [String: String]

    /// One figure of the table: its name and how to read it off a result.
    private struct Metric: Sendable {
        var name: String
        var digits: Int
        var value: @Sendable (ThrowbackLoad.Result) -> Double
    }

    private static let metrics: [Metric] = [
        Metric(name: "CPU per update (ms)", digits: 3) { $0.cpuPerUpdate / .milliseconds(1) },
        Metric(name: "voluntary context switches per update", digits: 2) { $0.contextSwitchesPerUpdate.voluntary },
        Metric(name: "involuntary context switches per update", digits: 2) { $0.contextSwitchesPerUpdate.involuntary },
        Metric(name: "RssAnon idle (MiB)", digits: 1) { Double($0.idleAnonymous) / 1_048_576 },
        Metric(name: "RssAnon peak in the burst (MiB)", digits: 1) { Double($0.burstPeakAnonymous) / 1_048_576 },
        Metric(name: "RssAnon peak, whole run (MiB)", digits: 1) { Double($0.peakAnonymous) / 1_048_576 },
        Metric(name: "RssAnon idle after the burst (MiB)", digits: 1) { Double($0.settledAnonymous) / 1_048_576 },
        Metric(name: "PSS idle (MiB)", digits: 1) { Double($0.idlePSS) / 1_048_576 },
        Metric(name: "PSS idle after the burst (MiB)", digits: 1) { Double($0.settledPSS) / 1_048_576 },
        Metric(name: "VmHWM, for reference (MiB)", digits: 1) { Double($0.peakRSS) / 1_048_576 },
        Metric(name: "time to first getUpdates (ms)", digits: 0) { $0.timeToFirstPoll / .milliseconds(1) },
        Metric(name: "CPU of the first, cold throwback (ms)", digits: 0) { $0.coldThrowbackCPU / .milliseconds(1) },
        Metric(name: "collages uploaded", digits: 0) { Double($0.uploads) },
        Metric(name: "Last.fm requests while warm", digits: 0) { Double($0.lastFMWhileWarm) },
        Metric(name: "replies received", digits: 0) { Double($0.replies) },
        Metric(name: "measured phase (s)", digits: 1) { $0.measuredWall / .seconds(1) },
    ]

    /// Runs the rounds and returns the report.
    func run() async throws -> String {
        var results: (current: [ThrowbackLoad.Result], ref: [ThrowbackLoad.Result]) = ([], [])
        var notes: [String] = []
        for round in 1...rounds {
            for (isCurrent, binary) in [(true, current), (false, refBinary)] {
                let name = isCurrent ? "current" : ref
                log("round \(round)/\(rounds), \(name): \(updates) requests after \(warmUp) to warm up…")
                let result = try await ThrowbackLoad(binary: binary, updates: updates, warmUp: warmUp, covers: covers, environment: environment, progress: { log("  " + $0) }).run()
                log("  CPU \(Report.milliseconds(result.cpuPerUpdate, digits: 3))/update, RssAnon idle \(Report.mebibytes(result.idleAnonymous)), "
                    + "burst peak \(Report.mebibytes(result.burstPeakAnonymous)), replies \(result.replies)/\(updates), \(Report.seconds(result.measuredWall))")
                if isCurrent { results.current.append(result) } else { results.ref.append(result) }
                if let text = Report.stderr(result.stderrTail, of: "round \(round), \(name)") { notes.append(text) }
                if !result.refusals.isEmpty { notes.append("round \(round), \(name): the fake Telegram refused \(Report.counts(result.refusals))") }
            }
        }
        let header = ["median of \(rounds) round\(rounds == 1 ? "" : "s")", "current", ref, "\(ref)/current"]
        let rows = Self.metrics.map { metric -> [String] in
            let mine = Self.median(results.current.map(metric.value))
            let theirs = Self.median(results.ref.map(metric.value))
            let ratio = mine == 0 ? (theirs == 0 ? "=" : "n/a") : Report.fixed(theirs / mine, digits: 2) + "×"
            return [metric.name, Report.fixed(mine, digits: metric.digits), Report.fixed(theirs, digits: metric.digits), ratio]
        }
        return (["throwbacks: \(updates) requests after \(warmUp) to warm up, \(covers ? "collage" : "text") replies, current vs \(ref)", Report.table(header, rows)] + notes)
            .joined(separator: "\n")
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }
}
