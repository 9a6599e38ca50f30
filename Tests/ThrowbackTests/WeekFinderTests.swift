import Foundation
import Testing
import Throwback
import TestLogging
import WeeklyCharts

/// Sunday 19 Nov 2023 12:00 UTC, a real Last.fm week boundary.
private let sunday = 1_700_395_200
private let week = 604_800

private func range(_ index: Int) -> WeeklyChartRange {
    WeeklyChartRange(fromUnix: sunday + index * week, toUnix: sunday + (index + 1) * week)
}

private func at(_ unix: Int) -> Date { Date(timeIntervalSince1970: TimeInterval(unix)) }

@Suite(.capturingLogs) struct WeekFinderTests {
    /// Weeks 0, 1, 2, then a gap (week 3 missing), then week 4.
    let finder = WeekFinder(ranges: [range(4), range(0), range(1), range(2)])

    @Test func exactlyOnFromBelongsToThatWeek() {
        #expect(finder.lookup(at(sunday + week)) == .found(range(1)))
        #expect(finder.lookup(at(sunday)) == .found(range(0)))
    }

    @Test func exactlyOnToBelongsToTheNextWeek() {
        #expect(finder.lookup(at(sunday + week - 1)) == .found(range(0)))
        #expect(finder.lookup(at(sunday + 2 * week)) == .found(range(2)))
    }

    @Test func aDateBetweenRangesIsAGap() {
        #expect(finder.lookup(at(sunday + 3 * week + 100)) == .gap)
    }

    @Test func beforeTheFirstRange() {
        #expect(finder.lookup(at(sunday - 1)) == .beforeHistory(firstWeek: range(0)))
    }

    @Test func inTheFuture() {
        #expect(finder.lookup(at(sunday + 5 * week)) == .afterHistory(lastWeek: range(4)))
        #expect(finder.lookup(at(sunday + 500 * week)) == .afterHistory(lastWeek: range(4)))
    }

    @Test func noRangesMeansNoHistory() {
        #expect(WeekFinder(ranges: []).lookup(at(sunday)) == .noHistory)
    }

    @Test func yearsBackUsesTheCalendar() {
        let now = at(sunday + 3 * 86_400) // Wed 22 Nov 2023
        let target = WeekFinder.date(yearsBefore: now, years: 3)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: target)
        #expect((parts.year, parts.month, parts.day) == (2020, 11, 22))
    }

    @Test func canMoveBackAndForwardOnlyWhereThereIsData() {
        // Weekly ranges for about three and a half years before "now".
        let now = at(sunday)
        let weeks = (1...182).map { range(-$0) }
        let finder = WeekFinder(ranges: weeks)
        #expect(finder.canMoveBackOneYear(from: 1, now: now))
        #expect(finder.canMoveBackOneYear(from: 2, now: now))
        #expect(!finder.canMoveBackOneYear(from: 3, now: now))
        #expect(!finder.canMoveForwardOneYear(from: 1, now: now))
        #expect(finder.canMoveForwardOneYear(from: 3, now: now))
        #expect(finder.earliestYearsAgo(now: now) == 3)
    }

    /// The warm path takes the client's list as it is (oldest first) and binary-searches it.
    /// At every boundary of a long history with gaps, it must agree with a plain scan.
    @Test func theBinarySearchAgreesWithAScanAtEveryBoundary() {
        let gaps: Set<Int> = [3, 97, 98, 250, 498]
        let history = (0..<500).filter { !gaps.contains($0) }.map(range)
        let warm = WeekFinder(sortedRanges: history)
        let unsorted = WeekFinder(ranges: history.reversed())
        func scan(_ date: Date) -> WeekLookup {
            if date < history[0].from { return .beforeHistory(firstWeek: history[0]) }
            if date >= history[history.count - 1].to { return .afterHistory(lastWeek: history[history.count - 1]) }
            return history.first { $0.contains(date) }.map(WeekLookup.found) ?? .gap
        }
        for index in -1...500 {
            let start = sunday + index * week
            for unix in [start - 1, start, start + 1, start + week / 2, start + week - 1] {
                let date = at(unix)
                #expect(warm.lookup(date) == scan(date), "at \(unix)")
                #expect(unsorted.lookup(date) == scan(date), "at \(unix)")
            }
        }
        #expect(warm.lookup(at(sunday + 3 * week)) == .gap)
    }
}
