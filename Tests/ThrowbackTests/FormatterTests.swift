import Foundation
import Telegram
import Testing
import Throwback
import TestLogging
import WeeklyCharts

private let week = WeeklyChartRange(fromUnix: 1_700_395_200, toUnix: 1_701_000_000) // 19–25 Nov 2023

private func summary(_ albums: [ChartAlbum], hidden: Int = 0, minimum: Int = 1) -> ChartSummary {
    ChartSummary(user: "alice", range: week, yearsAgo: 3, albums: albums, hiddenCount: hidden, minimumPlayCount: minimum)
}

@Suite(.capturingLogs) struct FormatterTests {
    @Test func htmlEscapesEveryName() {
        let text = ChartFormatter.telegram.format(ChartSummary(
            user: "a<b>", range: week, yearsAgo: 1,
            albums: [ChartAlbum(artist: "Simon & Garfunkel", name: "<Bridge> & \"Water\"", playCount: 2, rank: 1)]
        ))
        #expect(text.contains("<b>Simon &amp; Garfunkel</b>"))
        #expect(text.contains("&lt;Bridge&gt; &amp; \"Water\""))
        #expect(text.contains("<b>a&lt;b&gt;</b>"))
        #expect(!text.contains("<Bridge>"))
        #expect(!text.contains("Simon & "))
    }

    @Test func plainTextIsNotEscaped() {
        let text = ChartFormatter.plain.format(summary([ChartAlbum(artist: "Simon & Garfunkel", name: "Bookends", playCount: 1, rank: 1)]))
        #expect(text == "alice · week of 19–25 Nov 2023, 3 years ago\n1. Simon & Garfunkel – Bookends (1 play)")
    }

    /// A past week's text is kept, but only for the same chart, byte for byte: a name
    /// spelled with a combining accent is not answered with the precomposed one, and a
    /// changed play count is formatted anew.
    @Test func aKeptChartIsReusedOnlyForTheSameChart() {
        let composed = summary([ChartAlbum(artist: "Beyonc\u{E9}", name: "Lemonade", playCount: 2, rank: 1)])
        let decomposed = summary([ChartAlbum(artist: "Beyonce\u{301}", name: "Lemonade", playCount: 2, rank: 1)])
        let morePlays = summary([ChartAlbum(artist: "Beyonc\u{E9}", name: "Lemonade", playCount: 3, rank: 1)])
        let first = ChartFormatter.plain.format(composed)
        #expect(ChartFormatter.plain.format(composed) == first)
        #expect(ChartFormatter.plain.format(decomposed).utf8.contains(0xCC))  // U+0301 is CC 81 in UTF-8
        #expect(!ChartFormatter.plain.format(composed).utf8.contains(0xCC))
        #expect(ChartFormatter.plain.format(morePlays).contains("Lemonade (3 plays)"))
    }

    @Test func playsArePluralised() {
        let text = ChartFormatter.plain.format(summary([
            ChartAlbum(artist: "A", name: "Two", playCount: 2, rank: 1),
            ChartAlbum(artist: "B", name: "One", playCount: 1, rank: 2),
        ]))
        #expect(text.contains("Two (2 plays)"))
        #expect(text.contains("One (1 play)"))
    }

    @Test func weeksInWords() {
        #expect(WeekDescription.days(of: week) == "19–25 Nov 2023")
        #expect(WeekDescription.days(of: WeeklyChartRange(fromUnix: 1_698_580_800, toUnix: 1_699_185_600)) == "29 Oct – 4 Nov 2023")
        #expect(WeekDescription.days(of: WeeklyChartRange(fromUnix: 1_703_419_200, toUnix: 1_704_024_000)) == "24–30 Dec 2023")
        // `to` is exclusive: a week ending on the 1st shows the last day of the month before.
        #expect(WeekDescription.days(of: WeeklyChartRange(fromUnix: 1_732_449_600, toUnix: 1_733_054_400)) == "24–30 Nov 2024")
        #expect(WeekDescription.days(of: WeeklyChartRange(fromUnix: 1_703_980_800, toUnix: 1_704_585_600)) == "31 Dec 2023 – 6 Jan 2024")
        #expect(WeekDescription.days(of: WeeklyChartRange(fromUnix: 1_703_937_600, toUnix: 1_704_542_400)) == "30 Dec 2023 – 5 Jan 2024")
        #expect(WeekDescription.week(week, yearsAgo: 1) == "week of 19–25 Nov 2023, 1 year ago")
    }

    @Test func longChartsAreCutToTopNWithACount() {
        let albums = (1...25).map { ChartAlbum(artist: "Artist \($0)", name: "Album \($0)", playCount: 100 - $0, rank: $0) }
        let text = ChartFormatter(markup: .telegramHTML, maxAlbums: 10).format(summary(albums))
        #expect(text.contains("10. <b>Artist 10</b>"))
        #expect(!text.contains("Artist 11<"))
        #expect(text.hasSuffix("…and 15 more albums."))
    }

    @Test func hugeNamesStayWithinTelegramsLimit() {
        let long = String(repeating: "&<>", count: 2000)
        let albums = (1...10).map { ChartAlbum(artist: long, name: long, playCount: 50 - $0, rank: $0) }
        let text = ChartFormatter.telegram.format(summary(albums))
        #expect(text.utf16.count <= 4096)
        #expect(text.contains("1. <b>"))
        #expect(text.contains("more album"))
    }

    @Test func emptyWeeksAndFilteredWeeksSaySo() {
        #expect(ChartFormatter.plain.format(summary([])).hasSuffix("No scrobbles that week."))
        let filtered = ChartFormatter.plain.format(summary([], hidden: 4, minimum: 3))
        #expect(filtered.contains("under the 3 plays filter"))
        #expect(filtered.contains("4 albums hidden"))
        let partly = ChartFormatter.plain.format(summary([ChartAlbum(artist: "A", name: "B", playCount: 5, rank: 1)], hidden: 1, minimum: 2))
        #expect(partly.hasSuffix("1 album under 2 plays hidden."))
    }

    @Test func historyMessages() {
        let before = ChartFormatter.plain.format(.beforeHistory(
            user: "dave", yearsAgo: 5, historyStart: Date(timeIntervalSince1970: 1_716_724_800), earliestYearsAgo: 2
        ))
        #expect(before == "dave’s Last.fm history starts in the week of 26 May 2024, so 5 years ago is too far back. Try 2 years or fewer.")
        #expect(ChartFormatter.plain.format(.noHistory(user: "zed")) == "zed has no listening history on Last.fm yet.")
        // Each source's users are told about their own service's history.
        #expect(ChartFormatter.plain.format(.noHistory(user: "lb:zed")) == "lb:zed has no listening history on ListenBrainz yet.")
        #expect(ChartFormatter.plain.format(.noHistory(user: "librefm:zed")) == "librefm:zed has no listening history on Libre.fm yet.")
    }

    @Test func summariesRankByPlaysAndApplyTheFilter() {
        let chart = WeeklyAlbumChart(user: "RJ", range: week, albums: [
            ChartAlbum(artist: "A", name: "low", playCount: 1, rank: 3),
            ChartAlbum(artist: "B", name: "top", playCount: 9, rank: 1),
            ChartAlbum(artist: "C", name: "mid", playCount: 4, rank: 2),
        ])
        let result = ChartSummary(chart: chart, yearsAgo: 1, minimumPlayCount: 2, canGoBack: true, canGoForward: false)
        #expect(result.albums.map(\.name) == ["top", "mid"])
        #expect(result.hiddenCount == 1)
        #expect(result.user == "RJ")
    }

    @Test func aLessThanWithACombiningMarkIsEscaped() {
        // "<\u{301}" is one Character that is not "<", yet Telegram reads its "<".
        let escaped = TelegramHTML.escape("tb <\u{301} 3 &\u{301}")
        #expect(escaped == "tb &lt;\u{301} 3 &amp;\u{301}")
        let text = ChartFormatter.telegram.format(summary([ChartAlbum(artist: "<\u{301}b>", name: "x", playCount: 1, rank: 1)]))
        #expect(TelegramHTML.problem(in: text) == nil)
    }

    @Test(arguments: [
        String(repeating: "👩‍👩‍👧‍👦", count: 500),
        String(repeating: "e\u{301}\u{302}\u{303}", count: 1000),
        String(repeating: "&", count: 3000),
        "a" + String(repeating: "\u{301}", count: 5000),
    ])
    func namesLongInUTF16StayWithinTelegramsLimitHeaderIncluded(name: String) {
        let albums = (1...10).map { ChartAlbum(artist: name, name: name, playCount: 50 - $0, rank: $0) }
        let long = ChartSummary(user: name, range: week, yearsAgo: 3, albums: albums)
        for outcome in [ThrowbackOutcome.chart(long), .noHistory(user: name), .chart(ChartSummary(user: name, range: week, yearsAgo: 3, albums: []))] {
            let text = ChartFormatter.telegram.format(outcome)
            #expect(text.utf16.count <= 4096)
            #expect(TelegramHTML.problem(in: text) == nil)
        }
        #expect(BotReply.text("No Last.fm user is called “\(name)”.").rendered(with: .telegram)!.utf16.count <= 4096)
    }
}
