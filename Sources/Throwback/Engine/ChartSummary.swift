import WeeklyCharts

import Foundation

/// One user's week, ready to be formatted: albums ranked by plays, after the play-count filter.
public struct ChartSummary: Sendable, Equatable {
    /// The user in Last.fm's spelling.
    public var user: String
    public var range: WeeklyChartRange
    public var yearsAgo: Int
    /// Albums at or above the minimum play count, most played first.
    public var albums: [ChartAlbum]
    /// Albums the minimum play count hid.
    public var hiddenCount: Int
    public var minimumPlayCount: Int
    /// An earlier year has chart data (◀).
    public var canGoBack: Bool
    /// A later year has chart data (▶).
    public var canGoForward: Bool

    public init(
        user: String, range: WeeklyChartRange, yearsAgo: Int, albums: [ChartAlbum], hiddenCount: Int = 0,
        minimumPlayCount: Int = 1, canGoBack: Bool = false, canGoForward: Bool = false
    ) {
        self.user = user
        self.range = range
        self.yearsAgo = yearsAgo
        self.albums = albums
        self.hiddenCount = hiddenCount
        self.minimumPlayCount = minimumPlayCount
        self.canGoBack = canGoBack
        self.canGoForward = canGoForward
    }

    /// Builds a summary from a raw chart: sorts by plays (then rank) and applies the filter.
    public init(
        chart: WeeklyAlbumChart, yearsAgo: Int, minimumPlayCount: Int, canGoBack: Bool, canGoForward: Bool
    ) {
        var albums = chart.albums
        // Last.fm answers in this order already: then the chart's own array is kept, not
        // copied album by album.
        if albums.indices.dropFirst().contains(where: { Self.ranks(albums[$0], before: albums[$0 - 1]) }) {
            albums.sort { Self.ranks($0, before: $1) }
        }
        // Most played first, so the filter keeps a prefix.
        let shown = albums.firstIndex { $0.playCount < minimumPlayCount } ?? albums.count
        let hidden = albums.count - shown
        if hidden > 0 { albums.removeSubrange(shown...) }
        self.init(
            user: chart.user, range: chart.range, yearsAgo: yearsAgo, albums: albums,
            hiddenCount: hidden, minimumPlayCount: minimumPlayCount,
            canGoBack: canGoBack, canGoForward: canGoForward
        )
    }

    /// More plays first, then Last.fm's rank.
    private static func ranks(_ a: ChartAlbum, before b: ChartAlbum) -> Bool {
        a.playCount != b.playCount ? a.playCount > b.playCount : a.rank < b.rank
    }

    /// Total plays of the shown albums.
    public var totalPlays: Int { albums.reduce(0) { $0 + $1.playCount } }
}

/// What a throwback request comes to.
public enum ThrowbackOutcome: Sendable, Equatable {
    /// The week's chart, possibly empty.
    case chart(ChartSummary)
    /// The target date is before the user's first chart week.
    case beforeHistory(user: String, yearsAgo: Int, historyStart: Date, earliestYearsAgo: Int?)
    /// The user has no listening history at all.
    case noHistory(user: String)
}
