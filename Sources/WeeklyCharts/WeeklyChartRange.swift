import Foundation

/// One weekly chart range. Last.fm's weeks run from Sunday 12:00 UTC to the next Sunday 12:00 UTC.
public struct WeeklyChartRange: Codable, Sendable, Hashable, Comparable {
    public var from: Date
    public var to: Date

    public init(from: Date, to: Date) {
        self.from = from
        self.to = to
    }

    /// Ranges as Unix times, the way the API takes them.
    public init(fromUnix: Int, toUnix: Int) {
        self.init(from: Date(timeIntervalSince1970: TimeInterval(fromUnix)), to: Date(timeIntervalSince1970: TimeInterval(toUnix)))
    }

    /// Whether Unix times from the API make a range worth using: ordered, and between 1970
    /// and the year 5000, so that converting them back can never overflow.
    public static func plausible(from: Int, to: Int) -> Bool {
        0 <= from && from < to && to < 95_617_584_000
    }

    public var fromUnix: Int { Int(from.timeIntervalSince1970) }
    public var toUnix: Int { Int(to.timeIntervalSince1970) }

    /// Whether `date` falls in `[from, to)`: a boundary instant belongs to the week it starts.
    public func contains(_ date: Date) -> Bool {
        from <= date && date < to
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.from, lhs.to) < (rhs.from, rhs.to)
    }
}
