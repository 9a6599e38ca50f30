// The formatter and its HTML: summaries built from arbitrary names (combining marks, emoji,
// `<`, `&`, very long strings), play counts, years, hidden counts and minimums, in every
// language the bot speaks and the pseudo-locale (each string a third longer).
import Foundation
import FuzzSupport
import LastFM
import WeeklyCharts
import Telegram
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
    for rank in 0..<input.int(in: 0...16) where !input.isEmpty {
        albums.append(ChartAlbum(
            artist: input.string(maxPieces: 3), name: input.string(maxPieces: 3),
            playCount: input.serverInt(), rank: input.bool() ? rank + 1 : input.serverInt()
        ))
    }
    let earliest: Int? = input.bool() ? input.int(in: 1...50) : nil
    let text = input.string(maxPieces: 8)
    // Read after the rest, so that the corpus from before languages keeps its meaning (in English).
    let language = Language.allCases[input.int(in: 0...(Language.allCases.count - 1))]
    let telegram = ChartFormatter.telegram.speaking(language)
    let captions = CollagePhotos.captionFormatter.speaking(language)
    let plainText = ChartFormatter.plain.speaking(language)
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
        let html = telegram.format(outcome)
        checkTelegramMessage(html, "telegram format of \(kind(outcome)) in \(language)")
        if BotReply.throwback(outcome).rendered(with: telegram) != html {
            violated("BotReply.throwback rendered differently from the formatter")
        }
        // The same chart as a photo's caption, and the weekly collage's caption (the header).
        let caption = captions.format(outcome)
        if let problem = TelegramHTML.captionProblem(in: caption) {
            violated("caption of \(kind(outcome)) in \(language): Telegram would refuse it: \(problem)", caption.debugDescription)
        }
        let plain = plainText.format(outcome)
        if tagFree, containsScalars(plain, "<b>") {
            violated("plain format of \(kind(outcome)) has <b> markup", plain.debugDescription)
        }
    }
    checkWeeklyPost(user: user, range: range, given: given, filtered: filtered, tagFree: tagFree, in: language, &input)
    // A text reply is escaped and cut to fit; the bot never sends an empty one.
    if !text.isEmpty, let html = BotReply.text(text).rendered(with: telegram) {
        checkTelegramMessage(html, "BotReply.text of \(text.utf16.count) UTF-16 units")
    }
    return 0
}

/// A weekly post of a few users, each section in one of its forms, packed into messages.
private func checkWeeklyPost(
    user: String, range: WeeklyChartRange, given: ChartSummary, filtered: ChartSummary, tagFree: Bool, in language: Language,
    _ input: inout FuzzInput
) {
    var entries: [WeeklyEntry] = []
    for index in 0..<input.int(in: 1...8) {
        let name = index == 0 ? user : input.string(maxPieces: 3)
        let content: WeeklyEntry.Content = switch input.byte() % 6 {
        case 0: .quiet
        case 1: .privateProfile
        case 2: .unavailable
        case 3: .accountGone
        case 4: .chart(given, anniversaries: [filtered, given])
        default: .chart(filtered, anniversaries: input.bool() ? [given] : [])
        }
        entries.append(WeeklyEntry(user: name, key: name.lowercased(), content: content))
    }
    for formatter in [ChartFormatter.telegram.speaking(language), ChartFormatter.plain.speaking(language)] {
        let html = formatter.markup == .telegramHTML
        let sections = entries.map(formatter.weeklySection)
        let header = input.bool() ? formatter.weeklyHeader(for: range) : nil
        if html, let header, let problem = TelegramHTML.captionProblem(in: header) {
            violated("weekly collage caption: Telegram would refuse it: \(problem)", header.debugDescription)
        }
        let messages = formatter.weeklyMessages(header: header, sections: sections)
        if messages.flatMap(\.sections) != Array(sections.indices) {
            violated("weekly post: sections \(messages.map(\.sections)) are not each sent once, in order, of \(sections.count)")
        }
        for (number, message) in messages.enumerated() {
            if html {
                checkTelegramMessage(message.text, "weekly post message \(number + 1) of \(messages.count)")
            } else if tagFree, !entries.contains(where: { containsScalars($0.user, "<b>") }), containsScalars(message.text, "<b>") {
                violated("plain weekly post has <b> markup", message.text.debugDescription)
            }
        }
    }
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

/// The executable's entry point under SwiftPM's name for it; libFuzzer takes over from here.
@_cdecl("FuzzFormatter_main")
public func fuzzerEntry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv)
}
