import Foundation

/// Last.fm's week grid: weeks start on Sunday at 12:00 UTC.
public enum LastFMWeek {
    public static let length: TimeInterval = 7 * 24 * 3600
    /// Sunday 4 January 1970, 12:00 UTC: the first boundary after the Unix epoch.
    static let origin: TimeInterval = 3.5 * 24 * 3600

    /// The start of the week that contains `date`.
    public static func start(of date: Date) -> Date {
        let weeks = ((date.timeIntervalSince1970 - origin) / length).rounded(.down)
        return Date(timeIntervalSince1970: origin + weeks * length)
    }

    /// The first boundary strictly after `date`.
    public static func nextBoundary(after date: Date) -> Date {
        start(of: date).addingTimeInterval(length)
    }
}
