import Foundation

/// Formatting of the results: aligned two-column reports and side-by-side tables.
enum Report {
    /// `label  value` lines with the values aligned.
    static func lines(_ rows: [(String, String)]) -> String {
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { "  " + $0.0.padding(toLength: width + 3, withPad: " ", startingAt: 0) + $0.1 }.joined(separator: "\n")
    }

    /// A table with a header row; the first column left-aligned, the others right-aligned.
    static func table(_ header: [String], _ rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.indices.map { column in
                let cell = row[column]
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return column == 0 ? cell + pad : pad + cell
            }.joined(separator: "   ")
        }.map { "  " + $0 }.joined(separator: "\n")
    }

    static func milliseconds(_ duration: Duration, digits: Int = 2) -> String {
        fixed(duration / .milliseconds(1), digits: digits) + " ms"
    }

    static func seconds(_ duration: Duration) -> String {
        fixed(duration / .seconds(1), digits: 1) + " s"
    }

    /// Bytes as MiB, the unit of `/proc`'s kB fields scaled by 1024.
    static func mebibytes(_ bytes: Int) -> String {
        fixed(Double(bytes) / 1_048_576, digits: 1) + " MiB"
    }

    static func fixed(_ value: Double, digits: Int) -> String {
        String(format: "%.\(digits)f", value)
    }

    /// "none", or "sendMessage 429: 3, …".
    static func counts(_ counts: [String: Int]) -> String {
        counts.isEmpty ? "none" : counts.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
    }

    /// The child's stderr, if it wrote anything: at LOG_LEVEL=error, anything there is news.
    static func stderr(_ lines: [String], of name: String) -> String? {
        lines.isEmpty ? nil : "\(name) wrote to stderr (last \(lines.count) lines):\n" + lines.map { "    " + $0 }.joined(separator: "\n")
    }
}

extension ThrowbackLoad.Result {
    var rows: [(String, String)] {
        let server = serverCPUPerUpdate.map { [("PostgreSQL server's CPU per update (not in the bot's)", Report.milliseconds($0, digits: 3))] } ?? []
        return [("CPU per update (user+system)", Report.milliseconds(cpuPerUpdate, digits: 3))] + server + [
            ("context switches per update", Report.fixed(contextSwitchesPerUpdate.voluntary, digits: 2) + " voluntary, "
                + Report.fixed(contextSwitchesPerUpdate.involuntary, digits: 2) + " involuntary"),
            ("anonymous memory (RssAnon), idle", Report.mebibytes(idleAnonymous)),
            ("RssAnon peak in the burst (20 ms samples)", Report.mebibytes(burstPeakAnonymous)),
            ("RssAnon peak over the whole run", Report.mebibytes(peakAnonymous) + "  (start-up and the cold collage included)"),
            ("RssAnon idle again after the burst", Report.mebibytes(settledAnonymous)),
            ("PSS idle, and after the burst", Report.mebibytes(idlePSS) + ", " + Report.mebibytes(settledPSS)),
            ("VmHWM (reference: file pages included)", Report.mebibytes(peakRSS)),
            ("time to first getUpdates", Report.milliseconds(timeToFirstPoll, digits: 0)),
            ("CPU of the first, cold throwback", Report.milliseconds(coldThrowbackCPU, digits: 0)
                + (uploads > 0 ? "  (with a collage: 9 covers fetched, rendered, uploaded)" : "  (a text reply)")),
            ("collages uploaded", "\(uploads)" + (uploads > 0 ? "  (the others went out again by file_id)" : "")),
            ("Last.fm requests while warm", "\(lastFMWhileWarm)" + (lastFMWhileWarm == 0 ? "" : "  (expected 0: the cache should answer)")),
            ("replies received", "\(replies) of \(updates)" + (duplicates > 0 ? ", and \(duplicates) sent twice" : "")),
            ("measured phase", "\(Report.seconds(measuredWall)) (\(Report.fixed(Double(replies) / max(0.001, measuredWall / .seconds(1)), digits: 1)) replies/s; the flood limit allows 30)"),
            ("refused by the fake Telegram", Report.counts(refusals)),
            ("after SIGTERM", exit),
        ]
    }
}

extension WeeklyLoad.Result {
    var rows: [(String, String)] {
        let ratio = floor > .zero ? Report.fixed(wall / floor, digits: 2) : "n/a (floor is 0)"
        return [
            ("tracked users", "\(users)"),
            ("Last.fm requests", "\(totalLastFMRequests) (\(Report.counts(lastFMRequests)))"),
            ("messages sent", "\(messages)"),
            ("wall time (spawn to exit)", Report.seconds(wall)),
            ("floor set by the limits", "\(Report.seconds(floor))  (max(0, R−5)/5 s for Last.fm + max(0, M−1) s for Telegram)"),
            ("time / floor", ratio),
            ("CPU (user+system)", Report.milliseconds(cpu, digits: 0)),
            ("refused by the fake Telegram", Report.counts(refusals)),
            ("child", exit),
        ]
    }
}
