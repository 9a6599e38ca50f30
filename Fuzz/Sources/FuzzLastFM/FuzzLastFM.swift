// Last.fm answers: the input is the HTTP response to every request (first byte: the status,
// see CannedTransport; the rest: the body), read through the real HTTP client, then through the
// week finder, the chart summary, the formatter and the throwback engine.
import Foundation
import FuzzSupport
import LastFM
import WeeklyCharts
import Networking
import Throwback

/// The key the client sends; it must never come back in an error.
private let apiKey = "fuzz-lastfm-key-0123456789abcdef"

/// A fixed "now" for the week finder and the engine: 15 June 2025, 12:00 UTC.
private let now = Date(timeIntervalSince1970: 1_749_988_800)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    Quiet.setUp()
    let transport = CannedTransport(input: data, size: size)
    let client = HTTPLastFMClient(transport: transport, apiKey: Secret(apiKey))
    // Knobs from the last byte, which JSON leaves alone when it is whitespace: a trailing
    // newline (as the seeds have) asks for 1 year back and a minimum of 1 play.
    let knob = (size > 0 ? data[size - 1] : 10) &- 10
    let yearsAgo = 1 + Int(knob % 50)
    let minimum = [1, 1, 2, 3, 5, 10, 100, 1000][Int(knob >> 5)]

    if let user = call("userInfo", { try await client.userInfo("alice") }) {
        _ = user.name.count + (user.realName?.count ?? 0)
        _ = user.registered?.timeIntervalSince1970
    }

    let ranges = call("weeklyChartList", { try await client.weeklyChartList(user: "alice") })
    if let ranges {
        for range in ranges where !(range.from < range.to) {
            violated("weeklyChartList: a range with from >= to", "\(range)")
        }
        if ranges != ranges.sorted() {
            violated("weeklyChartList: ranges not oldest first", "\(ranges.prefix(20))")
        }
        checkWeekFinder(WeekFinder(ranges: ranges))
    }

    let asked = ranges?.last ?? WeeklyChartRange(fromUnix: 1_718_539_200, toUnix: 1_719_144_000)
    if let chart = call("weeklyAlbumChart", { try await client.weeklyAlbumChart(user: "alice", range: asked) }) {
        if !(chart.range.from < chart.range.to) { violated("weeklyAlbumChart: a range with from >= to", "\(chart.range)") }
        let finder = WeekFinder(ranges: ranges ?? [])
        let summary = ChartSummary(
            chart: chart, yearsAgo: yearsAgo, minimumPlayCount: minimum,
            canGoBack: finder.canMoveBackOneYear(from: yearsAgo, now: now),
            canGoForward: finder.canMoveForwardOneYear(from: yearsAgo, now: now)
        )
        checkSummary(summary, of: chart, minimum: minimum)
        for album in chart.albums.prefix(5) { checkCacheKey(artist: album.artist, album: album.name) }
        let html = ChartFormatter.telegram.format(.chart(summary))
        checkTelegramMessage(html, "the chart of \(excerpt(chart.user, limit: 100).debugDescription)")
        _ = ChartFormatter.plain.format(.chart(summary))
    }

    if let page = call("friends", { try await client.friends(user: "alice") }) {
        _ = page.friends.map(\.name.count)
    }

    // Libre.fm's way to a week: recent tracks between two instants.
    if let page = call("recentTracks", { try await client.send(.recentTracks(user: "alice", range: asked, page: 1)) }) {
        for track in page.tracks {
            if let played = track.playedAt, !(0..<95_617_584_000).contains(played.timeIntervalSince1970) {
                violated("recentTracks: an implausible time was kept", "\(played.timeIntervalSince1970)")
            }
        }
    }

    if let info = call("albumInfo", { try await client.albumInfo(artist: "Björk", album: "Homogenic") }) {
        _ = info.coverURL?.absoluteString
    }

    // The whole engine on the same answers: chart list, then the chart of the week it finds.
    let engine = ThrowbackEngine(lastFM: client, now: { now })
    if let outcome = call("engine", { try await engine.throwback(user: "alice", yearsAgo: yearsAgo, minimumPlayCount: minimum) }) {
        checkTelegramMessage(ChartFormatter.telegram.format(outcome), "the engine's throwback \(outcome)")
        _ = ChartFormatter.plain.format(outcome)
    }
    return 0
}

/// Runs one client call: its value, nil for a `ListeningError`; any other error is a finding.
private func call<T: Sendable>(_ name: String, _ body: @escaping @Sendable () async throws -> T) -> T? {
    switch blockingResult(body) {
    case .success(let value):
        return value
    case .failure(let error as ListeningError):
        let shown = "\(error) \(error.userMessage)"
        if shown.contains(apiKey) { violated("\(name): the API key leaked into an error", shown) }
        return nil
    case .failure(let error):
        violated("\(name): an error other than ListeningError escaped: \(type(of: error))", "\(error)")
    }
}

/// The finder must agree with a plain scan of the ranges wherever Last.fm's ranges do not overlap.
private func checkWeekFinder(_ finder: WeekFinder) {
    let ranges = finder.ranges
    let disjoint = zip(ranges, ranges.dropFirst()).allSatisfy { $0.to <= $1.from }
    var dates = [now, Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 95_617_584_000)]
    for range in ranges.prefix(8) + ranges.suffix(8) {
        dates += [range.from, range.to, range.from.addingTimeInterval(-1), range.to.addingTimeInterval(-1)]
    }
    for years in [1, 2, 5, 10, 50] {
        dates.append(WeekFinder.date(yearsBefore: now, years: years))
    }
    for date in dates {
        let lookup = finder.lookup(date)
        let containing = ranges.first { $0.contains(date) }
        switch lookup {
        case .found(let range):
            if !range.contains(date) || !ranges.contains(range) {
                violated("WeekFinder: found \(range), which does not hold \(date)")
            }
        case .noHistory:
            if !ranges.isEmpty { violated("WeekFinder: no history, with \(ranges.count) ranges") }
        case .beforeHistory(let first):
            if first != ranges.first || date >= first.from { violated("WeekFinder: \(date) is not before \(first)") }
        case .afterHistory(let last):
            if last != ranges.last || date < last.to { violated("WeekFinder: \(date) is not after \(last)") }
        case .gap:
            if disjoint, let containing { violated("WeekFinder: a gap at \(date), inside \(containing)") }
        }
        if disjoint, containing != nil, lookup != .found(containing!) {
            violated("WeekFinder: \(date) lies in \(containing!) but lookup says \(lookup)")
        }
    }
    if let earliest = finder.earliestYearsAgo(now: now), let first = ranges.first {
        if WeekFinder.date(yearsBefore: now, years: earliest) < first.from
            || WeekFinder.date(yearsBefore: now, years: earliest + 1) >= first.from {
            violated("WeekFinder: earliestYearsAgo \(earliest) is not the last year inside the history from \(first.from)")
        }
    }
    for years in 1...3 {
        _ = finder.canMoveBackOneYear(from: years, now: now)
        _ = finder.canMoveForwardOneYear(from: years, now: now)
    }
}

/// The summary keeps every album once: shown ones at or above the minimum, most played first.
private func checkSummary(_ summary: ChartSummary, of chart: WeeklyAlbumChart, minimum: Int) {
    if summary.albums.count + summary.hiddenCount != chart.albums.count {
        violated("ChartSummary: \(summary.albums.count) shown + \(summary.hiddenCount) hidden != \(chart.albums.count) albums")
    }
    if summary.albums.contains(where: { $0.playCount < minimum }) {
        violated("ChartSummary: an album under the minimum of \(minimum) is shown")
    }
    if zip(summary.albums, summary.albums.dropFirst()).contains(where: { $0.playCount < $1.playCount }) {
        violated("ChartSummary: albums not sorted by plays")
    }
}

/// A cache key keeps each value apart: its separators inside a value are escaped, and
/// undoing the escapes gives the value back, lowercased.
private func checkCacheKey(artist: String, album: String) {
    let key = LastFMCall<AlbumInfo>.albumInfo(artist: artist, album: album).cacheKey
    let parts = key.split(separator: "|", omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0] == "album.getinfo", parts[1].hasPrefix("artist="), parts[2].hasPrefix("album=") else {
        violated("cacheKey: not three parts", excerpt(key, limit: 200).debugDescription)
    }
    for (part, value) in [(parts[1].dropFirst(7), artist), (parts[2].dropFirst(6), album)] {
        if part.contains("=") { violated("cacheKey: an unescaped = in a value", excerpt(key, limit: 200).debugDescription) }
        let unescaped = part.replacingOccurrences(of: "%7C", with: "|").replacingOccurrences(of: "%3D", with: "=")
            .replacingOccurrences(of: "%25", with: "%")
        if !unescaped.utf8.elementsEqual(value.lowercased().utf8) {
            violated("cacheKey: a value does not come back", excerpt(key, limit: 200).debugDescription)
        }
    }
}

/// The executable's entry point under SwiftPM's name for it; libFuzzer takes over from here.
@_cdecl("FuzzLastFM_main")
public func fuzzerEntry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv)
}
