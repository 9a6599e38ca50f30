// The formatter and its HTML: summaries built from arbitrary names (combining marks, emoji,
// `<`, `&`, very long strings), play counts, years, hidden counts and minimums.
import Foundation
import FuzzSupport
import LastFM
import Throwback

/// The last second a plausible chart range may reach (see `WeeklyChartRange.plausible`).
private let latest = 95_617_584_000 - 1

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let user = input.string(maxPieces: 4)
    let range = plausibleRange(&input)
    let yearsAgo = input.int(in: 1...50)
    let minimum = input.int(in: 1...1000)
    let hidden = input.int(in: 0...2000)
    let canGoBack = input.bool()
    let canGoForward = input.bool()
    var albums: [ChartAlbum] = []
    for rank in 0..<input.int(in: 0...40) where !input.isEmpty {
        albums.append(ChartAlbum(
            artist: input.string(maxPieces: 3), name: input.string(maxPieces: 3),
            playCount: input.serverInt(), rank: input.bool() ? rank + 1 : input.serverInt()
        ))
    }
    let earliest: Int? = input.bool() ? input.int(in: 1...50) : nil
    let text = input.string(maxPieces: 8)
    let inputs = [user, text] + albums.flatMap { [$0.artist, $0.name] }
    let tagFree = !inputs.contains { containsScalars($0, "<b>") }

    let given = ChartSummary(
        user: user, range: range, yearsAgo: yearsAgo, albums: albums, hiddenCount: hidden,
        minimumPlayCount: minimum, canGoBack: canGoBack, canGoForward: canGoForward
    )
    let filtered = ChartSummary(
        chart: WeeklyAlbumChart(user: user, range: range, albums: albums), yearsAgo: yearsAgo,
        minimumPlayCount: minimum, canGoBack: canGoBack, canGoForward: canGoForward
    )
    let outcomes: [ThrowbackOutcome] = [
        .chart(given), .chart(filtered), .noHistory(user: user),
        .beforeHistory(user: user, yearsAgo: yearsAgo, historyStart: range.from, earliestYearsAgo: earliest),
    ]
    for outcome in outcomes {
        let html = ChartFormatter.telegram.format(outcome)
        checkTelegramMessage(html, "telegram format of \(kind(outcome))")
        if BotReply.throwback(outcome).rendered(with: .telegram) != html {
            violated("BotReply.throwback rendered differently from the formatter")
        }
        let plain = ChartFormatter.plain.format(outcome)
        if tagFree, containsScalars(plain, "<b>") {
            violated("plain format of \(kind(outcome)) has <b> markup", plain.debugDescription)
        }
    }
    // A text reply is escaped and cut to fit; the bot never sends an empty one.
    if !text.isEmpty, let html = BotReply.text(text).rendered(with: .telegram) {
        checkTelegramMessage(html, "BotReply.text of \(text.utf16.count) UTF-16 units")
    }
    return 0
}

/// A range the client could have decoded: from 1970 to the year 5000, from before to; usually
/// one Last.fm week, sometimes any length.
private func plausibleRange(_ input: inout FuzzInput) -> WeeklyChartRange {
    let from = input.int(in: 0...(latest - 1))
    let week = 7 * 24 * 3600
    let to = input.bool() ? min(from + week, latest) : input.int(in: (from + 1)...latest)
    return WeeklyChartRange(fromUnix: from, toUnix: to)
}

private func kind(_ outcome: ThrowbackOutcome) -> String {
    switch outcome {
    case .chart(let summary): "a chart of \(summary.albums.count) albums (\(summary.hiddenCount) hidden)"
    case .noHistory: "no history"
    case .beforeHistory: "before history"
    }
}
