import Foundation
import LastFM
import Testing
import Throwback
import TestLogging
import Networking

/// The engine over the demo data, which runs through the real HTTP client and decoder.
private func engine(now: Date) -> ThrowbackEngine {
    let lastFM = HTTPLastFMClient(transport: DemoLastFMTransport(now: { now }), apiKey: "demo")
    return ThrowbackEngine(lastFM: lastFM, now: { now })
}

private let now = Date(timeIntervalSince1970: 1_795_000_000) // Nov 2026

@Suite(.capturingLogs) struct EngineTests {
    @Test func aThrowbackFindsTheWeekYearsAgo() async throws {
        let outcome = try await engine(now: now).throwback(user: "ALICE", yearsAgo: 3)
        guard case .chart(let summary) = outcome else { Issue.record("\(outcome)"); return }
        #expect(summary.user == "alice")
        #expect(summary.range.contains(WeekFinder.date(yearsBefore: now, years: 3)))
        #expect(summary.canGoBack)
        #expect(summary.canGoForward)
        #expect(summary.albums.map(\.playCount) == summary.albums.map(\.playCount).sorted(by: >))
    }

    @Test func beforeTheFirstWeekSaysWhenHistoryStarts() async throws {
        let outcome = try await engine(now: now).throwback(user: "dave", yearsAgo: 5)
        guard case let .beforeHistory(user, years, start, earliest) = outcome else { Issue.record("\(outcome)"); return }
        #expect(user == "dave")
        #expect(years == 5)
        #expect(start < now)
        #expect(earliest == 2)
    }

    @Test func unknownUsersAreTyped() async {
        await #expect(throws: ListeningError("Last.fm", .userNotFound("nobody_here"))) {
            try await engine(now: now).throwback(user: "nobody_here", yearsAgo: 1)
        }
    }

    @Test(arguments: [0, -1, 51, 1000])
    func yearsOutOfRangeAreRefused(years: Int) async {
        await #expect(throws: ThrowbackError.yearsOutOfRange(years)) {
            try await engine(now: now).throwback(user: "alice", yearsAgo: years)
        }
    }

    @Test func theMinimumPlayCountHidesAlbums() async throws {
        let all = try await engine(now: now).throwback(user: "carol", yearsAgo: 2, minimumPlayCount: 1)
        let filtered = try await engine(now: now).throwback(user: "carol", yearsAgo: 2, minimumPlayCount: 10)
        guard case .chart(let a) = all, case .chart(let b) = filtered else { Issue.record("no chart"); return }
        #expect(a.hiddenCount == 0)
        #expect(b.albums.allSatisfy { $0.playCount >= 10 })
        #expect(b.albums.count + b.hiddenCount == a.albums.count)
    }

    @Test func demoDataHasEmptyWeeksAndIsDeterministic() async throws {
        let lastFM = HTTPLastFMClient(transport: DemoLastFMTransport(now: { now }), apiKey: "demo")
        let ranges = try await lastFM.weeklyChartList(user: "alice")
        #expect(ranges.count > 52 * 10)
        var empty = 0
        for range in ranges.suffix(60) {
            let chart = try await lastFM.weeklyAlbumChart(user: "alice", range: range)
            if chart.albums.isEmpty { empty += 1 }
        }
        #expect(empty > 0)
        #expect(empty < 30)
        let first = try await lastFM.weeklyAlbumChart(user: "bob", range: ranges[ranges.count - 10])
        let again = try await lastFM.weeklyAlbumChart(user: "bob", range: ranges[ranges.count - 10])
        #expect(first == again)
    }
}
