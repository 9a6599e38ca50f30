import Foundation

/// `throwbacks --compare REF` or `--postgres`: two binaries measured in the same run,
/// alternating (first, second, first, second, …), and compared by the median of the rounds.
///
/// The machine these run on is shared and noisy, so absolute figures drift from run to
/// run; alternating the two makes any drift hit both alike, and only their ratio is worth
/// reporting.
struct Comparison {
    /// One of the two measured: the name of its column, its binary, and the PostgreSQL server
    /// it keeps its state in (nil: SQLite).
    struct Contender {
        var name: String
        var binary: URL
        var postgres: PostgresCluster?
    }

    var first: Contender
    var second: Contender
    var updates: Int
    var warmUp: Int
    var rounds: Int
    var covers: Bool
    var environment: [String: String]

    /// One figure of the table: its name and how to read it off a result (nil: not measured).
    private struct Metric: Sendable {
        var name: String
        var digits: Int
        /// Shown only when a PostgreSQL server was measured.
        var withServer = false
        var value: @Sendable (ThrowbackLoad.Result) -> Double?
    }

    private static let metrics: [Metric] = [
        Metric(name: "CPU per update, the bot's (ms)", digits: 3) { $0.cpuPerUpdate / .milliseconds(1) },
        Metric(name: "CPU per update, PostgreSQL server's (ms)", digits: 3, withServer: true) { $0.serverCPUPerUpdate.map { $0 / .milliseconds(1) } },
        Metric(name: "CPU per update, bot + server (ms)", digits: 3, withServer: true) { ($0.cpuPerUpdate + ($0.serverCPUPerUpdate ?? .zero)) / .milliseconds(1) },
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

    /// Runs the rounds and returns the report: the medians side by side, then each round's
    /// CPU, memory and time.
    func run() async throws -> String {
        var results: (first: [ThrowbackLoad.Result], second: [ThrowbackLoad.Result]) = ([], [])
        var notes: [String] = []
        var roundLines: [String] = []
        for round in 1...rounds {
            for (isFirst, contender) in [(true, first), (false, second)] {
                log("round \(round)/\(rounds), \(contender.name): \(updates) requests after \(warmUp) to warm up…")
                let result = try await ThrowbackLoad(
                    binary: contender.binary, updates: updates, warmUp: warmUp, covers: covers, environment: environment,
                    postgres: contender.postgres, progress: { log("  " + $0) }
                ).run()
                let line = "round \(round), \(contender.name): " + Self.summary(result)
                log("  " + line)
                roundLines.append(line)
                if isFirst { results.first.append(result) } else { results.second.append(result) }
                if let text = Report.stderr(result.stderrTail, of: "round \(round), \(contender.name)") { notes.append(text) }
                if !result.refusals.isEmpty { notes.append("round \(round), \(contender.name): the fake Telegram refused \(Report.counts(result.refusals))") }
            }
        }
        let header = ["median of \(rounds) round\(rounds == 1 ? "" : "s")", first.name, second.name, "\(second.name)/\(first.name)"]
        let withServer = first.postgres != nil || second.postgres != nil
        let rows = Self.metrics.filter { withServer || !$0.withServer }.map { metric -> [String] in
            let mine = Self.median(results.first.compactMap(metric.value))
            let theirs = Self.median(results.second.compactMap(metric.value))
            guard let mine, let theirs else { return [metric.name] + [mine, theirs].map { $0.map { Report.fixed($0, digits: metric.digits) } ?? "–" } + [""] }
            let ratio = mine == 0 ? (theirs == 0 ? "=" : "n/a") : Report.fixed(theirs / mine, digits: 2) + "×"
            return [metric.name, Report.fixed(mine, digits: metric.digits), Report.fixed(theirs, digits: metric.digits), ratio]
        }
        let title = "throwbacks: \(updates) requests after \(warmUp) to warm up, \(covers ? "collage" : "text") replies, \(first.name) vs \(second.name)"
        return ([title, Report.table(header, rows), "each round:"] + roundLines.map { "  " + $0 } + notes).joined(separator: "\n")
    }

    /// One round's main figures on a line.
    private static func summary(_ result: ThrowbackLoad.Result) -> String {
        let server = result.serverCPUPerUpdate.map { " (+ server \(Report.milliseconds($0, digits: 3)))" } ?? ""
        return "CPU \(Report.milliseconds(result.cpuPerUpdate, digits: 3))/update\(server), RssAnon idle \(Report.mebibytes(result.idleAnonymous)), "
            + "burst peak \(Report.mebibytes(result.burstPeakAnonymous)), replies \(result.replies)/\(result.updates), \(Report.seconds(result.measuredWall))"
    }

    static func median(_ values: [Double]) -> Double? {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return nil }
        let middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }
}
