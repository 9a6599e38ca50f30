import WeeklyCharts

import Foundation

/// Finds the weekly chart range that contains "now minus N years" in a user's chart list.
///
/// Last.fm will not map a date to a week, so this does it from `user.getWeeklyChartList`.
/// It also answers the original app's `canMoveBackOneYear` / `canMoveForwardOneYear`.
public struct WeekFinder: Sendable {
    /// The user's ranges, oldest first.
    public let ranges: [WeeklyChartRange]

    public init(ranges: [WeeklyChartRange]) {
        self.ranges = ranges.sorted()
    }

    /// Ranges already oldest first, as `weeklyChartList` returns them: nothing is copied or
    /// scanned, so that a warm throwback costs a binary search of a long history.
    public init(sortedRanges: [WeeklyChartRange]) {
        self.ranges = sortedRanges
    }

    /// The same instant `years` years before `now` (29 February falls back to the 28th).
    public static func date(yearsBefore now: Date, years: Int) -> Date {
        UTCDateTime(now).yearsEarlier(years)?.date ?? now
    }

    /// Where `date` falls in the chart list.
    public func lookup(_ date: Date) -> WeekLookup {
        guard let first = ranges.first, let last = ranges.last else { return .noHistory }
        if date < first.from { return .beforeHistory(firstWeek: first) }
        if date >= last.to { return .afterHistory(lastWeek: last) }
        // Binary search for the last range starting at or before `date`.
        var low = 0
        var high = ranges.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if ranges[mid].from <= date { low = mid } else { high = mid - 1 }
        }
        return ranges[low].contains(date) ? .found(ranges[low]) : .gap
    }

    /// The week `yearsAgo` years before `now`.
    public func week(yearsAgo: Int, now: Date) -> WeekLookup {
        lookup(Self.date(yearsBefore: now, years: yearsAgo))
    }

    /// Whether the user has a chart week `yearsAgo` years back.
    public func hasData(yearsAgo: Int, now: Date) -> Bool {
        guard yearsAgo >= 1 else { return false }
        if case .found = week(yearsAgo: yearsAgo, now: now) { return true }
        return false
    }

    /// The original app's `canMoveBackOneYear`: one more year back has a chart week.
    public func canMoveBackOneYear(from yearsAgo: Int, now: Date) -> Bool {
        hasData(yearsAgo: yearsAgo + 1, now: now)
    }

    /// The original app's `canMoveForwardOneYear`: one year closer to now has a chart week.
    public func canMoveForwardOneYear(from yearsAgo: Int, now: Date) -> Bool {
        hasData(yearsAgo: yearsAgo - 1, now: now)
    }

    /// The largest number of years back that still lands inside the history, if any.
    public func earliestYearsAgo(now: Date) -> Int? {
        guard let first = ranges.first else { return nil }
        var years = 0
        while Self.date(yearsBefore: now, years: years + 1) >= first.from { years += 1 }
        return years >= 1 ? years : nil
    }
}

/// Where a date falls in a user's chart list.
public enum WeekLookup: Sendable, Equatable {
    /// The range that contains the date.
    case found(WeeklyChartRange)
    /// The date is before the user's first week.
    case beforeHistory(firstWeek: WeeklyChartRange)
    /// The date is after the user's last listed week.
    case afterHistory(lastWeek: WeeklyChartRange)
    /// The date falls between two listed ranges.
    case gap
    /// The user has no chart weeks at all.
    case noHistory
}
