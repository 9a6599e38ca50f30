import Foundation
import LastFM
import WeeklyCharts

/// The data flow of the original app: now and N years → target date → the chart range that
/// contains it → that week's album chart → filtered by the play count → a summary.
///
/// A cold Last.fm throwback costs two calls (chart list, album chart); a cached client makes
/// a warm one cost none. Other sources answer the same two questions (`ListeningHistory`).
public struct ThrowbackEngine: Sendable {
    /// Years a throwback may reach back. Last.fm began in 2002; anything past this is a typo.
    public static let yearRange = 1...50

    private let history: any ListeningHistory
    private let now: @Sendable () -> Date

    /// - Parameter history: every source the bot reads, usually `ListeningSources`.
    public init(history: any ListeningHistory, now: @escaping @Sendable () -> Date = Date.init) {
        self.history = history
        self.now = now
    }

    /// An engine for Last.fm names only.
    public init(lastFM: any LastFMClient, now: @escaping @Sendable () -> Date = Date.init) {
        self.init(history: LastFMHistory(lastFM: lastFM), now: now)
    }

    /// The throwback of `user` for the week `yearsAgo` years back.
    ///
    /// - Throws: `ThrowbackError.yearsOutOfRange`, a `ListeningError`, or `CancellationError`.
    public func throwback(user: String, yearsAgo: Int, minimumPlayCount: Int = 1) async throws -> ThrowbackOutcome {
        guard Self.yearRange.contains(yearsAgo) else { throw ThrowbackError.yearsOutOfRange(yearsAgo) }
        return try await throwback(user: user, in: try await history(of: user), yearsAgo: yearsAgo, minimumPlayCount: minimumPlayCount, now: now())
    }

    /// The user's weekly chart ranges: one call, or none when cached.
    public func history(of user: String) async throws -> WeekFinder {
        WeekFinder(sortedRanges: try await history.weeks(of: user))
    }

    /// The throwback for `yearsAgo` years before `now`, from a history already fetched: one
    /// more call for the week's chart, none if the week is empty or cached.
    public func throwback(user: String, in finder: WeekFinder, yearsAgo: Int, minimumPlayCount: Int, now: Date) async throws -> ThrowbackOutcome {
        let range: WeeklyChartRange
        switch finder.week(yearsAgo: yearsAgo, now: now) {
        case .found(let found):
            range = found
        case .noHistory:
            return .noHistory(user: user)
        case .beforeHistory(let first):
            return .beforeHistory(
                user: user, yearsAgo: yearsAgo, historyStart: first.from,
                earliestYearsAgo: finder.earliestYearsAgo(now: now)
            )
        case .gap, .afterHistory:
            // No range means no scrobbles: show the Last.fm week that holds the date, empty.
            let start = LastFMWeek.start(of: WeekFinder.date(yearsBefore: now, years: yearsAgo))
            let empty = WeeklyAlbumChart(user: user, range: WeeklyChartRange(from: start, to: start.addingTimeInterval(LastFMWeek.length)), albums: [])
            return .chart(summary(of: empty, yearsAgo: yearsAgo, minimumPlayCount: minimumPlayCount, finder: finder, now: now))
        }
        let chart = try await history.albumChart(of: user, in: range)
        return .chart(summary(of: chart, yearsAgo: yearsAgo, minimumPlayCount: minimumPlayCount, finder: finder, now: now))
    }

    private func summary(
        of chart: WeeklyAlbumChart, yearsAgo: Int, minimumPlayCount: Int, finder: WeekFinder, now: Date
    ) -> ChartSummary {
        ChartSummary(
            chart: chart, yearsAgo: yearsAgo, minimumPlayCount: max(1, minimumPlayCount),
            canGoBack: finder.canMoveBackOneYear(from: yearsAgo, now: now),
            canGoForward: finder.canMoveForwardOneYear(from: yearsAgo, now: now)
        )
    }
}

/// Requests the engine refuses before asking Last.fm.
public enum ThrowbackError: Error, Sendable, Equatable {
    case yearsOutOfRange(Int)

    /// The line a person reads, in `language`.
    public func userMessage(in language: Language = .english) -> String {
        switch self {
        case .yearsOutOfRange(let years):
            let most = language.count(ThrowbackEngine.yearRange.upperBound, .years)
            // A number longer than anyone means is not echoed back.
            return (-999_999...999_999).contains(years)
                ? language.text(.yearsOutOfRange, language.count(years, .years), most)
                : language.text(.yearsWayOutOfRange, most)
        }
    }
}
