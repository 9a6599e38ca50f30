import WeeklyCharts

import Foundation

/// Words for a chart week: "17–23 Nov 2023", "27 Oct – 2 Nov 2023", "29 Dec 2023 – 4 Jan 2024".
public enum WeekDescription {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The days of a range. Last.fm's `to` is exclusive (weeks run from Sunday noon to
    /// Sunday noon), so the last day shown is the one before it: seven days, not eight.
    public static func days(of range: WeeklyChartRange) -> String {
        let start = UTCDateTime(range.from)
        let end = UTCDateTime(max(range.from, range.to.addingTimeInterval(-86_400)))
        let (d1, m1, y1) = (start.day, months[start.month - 1], start.year)
        let (d2, m2, y2) = (end.day, months[end.month - 1], end.year)
        if y1 != y2 { return "\(d1) \(m1) \(y1) – \(d2) \(m2) \(y2)" }
        if m1 != m2 { return "\(d1) \(m1) – \(d2) \(m2) \(y2)" }
        return "\(d1)–\(d2) \(m2) \(y2)"
    }

    /// "week of 17–23 Nov 2023, 3 years ago".
    public static func week(_ range: WeeklyChartRange, yearsAgo: Int) -> String {
        "week of \(days(of: range)), \(yearsAgoPhrase(yearsAgo))"
    }

    /// "1 year ago", "3 years ago".
    public static func yearsAgoPhrase(_ years: Int) -> String {
        "\(count(years, "year")) ago"
    }

    /// A day in words: "3 Mar 2019".
    public static func day(_ date: Date) -> String {
        let parts = UTCDateTime(date)
        return "\(parts.day) \(months[parts.month - 1]) \(parts.year)"
    }

    /// A moment in a zone's local time: "Mon 24 Nov, 09:00 (Europe/Berlin)".
    ///
    /// - Parameter name: the zone as it was named (`PostingTime.zoneName`); nil shows
    ///   `zone.displayName`.
    public static func moment(_ date: Date, in zone: TimeZone, named name: String? = nil) -> String {
        let local = date.addingTimeInterval(TimeInterval(zone.secondsFromGMT(for: date)))
        let parts = UTCDateTime(local)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let time = WeeklySchedule.clock(parts.hour, parts.minute)
        return "\(days[parts.weekday - 1]) \(parts.day) \(months[parts.month - 1]), \(time) (\(name ?? zone.displayName))"
    }

    /// "1 play", "2 plays".
    public static func count(_ n: Int, _ noun: String) -> String {
        "\(n) \(noun)\(n == 1 ? "" : "s")"
    }
}
