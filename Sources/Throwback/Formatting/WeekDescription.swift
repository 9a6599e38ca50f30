import WeeklyCharts

import Foundation

/// Words for a chart week: "17–23 Nov 2023", "27 Oct – 2 Nov 2023", "29 Dec 2023 – 4 Jan 2024";
/// in other languages as ICU writes them ("19.–25. Nov. 2023", "19—25 нояб. 2023 г.").
///
/// English is written here, as it always was, without a formatter; the other languages'
/// formats are made once each and shared (a format style is a value, safe to share).
public enum WeekDescription {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let utc = TimeZone(identifier: "UTC") ?? .current

    /// The days of a range. Last.fm's `to` is exclusive (weeks run from Sunday noon to
    /// Sunday noon), so the last day shown is the one before it: seven days, not eight.
    public static func days(of range: WeeklyChartRange, in language: Language = .english) -> String {
        let last = max(range.from, range.to.addingTimeInterval(-86_400))
        if let style = ranges[language] { return style.format(range.from..<last) }
        let start = UTCDateTime(range.from)
        let end = UTCDateTime(last)
        let (d1, m1, y1) = (start.day, months[start.month - 1], start.year)
        let (d2, m2, y2) = (end.day, months[end.month - 1], end.year)
        if y1 != y2 { return "\(d1) \(m1) \(y1) – \(d2) \(m2) \(y2)" }
        if m1 != m2 { return "\(d1) \(m1) – \(d2) \(m2) \(y2)" }
        return "\(d1)–\(d2) \(m2) \(y2)"
    }

    /// "week of 17–23 Nov 2023, 3 years ago".
    public static func week(_ range: WeeklyChartRange, yearsAgo: Int, in language: Language = .english) -> String {
        language.text(.chartWeek, days(of: range, in: language), language.yearsAgo(yearsAgo))
    }

    /// "1 year ago", "3 years ago".
    public static func yearsAgoPhrase(_ years: Int, in language: Language = .english) -> String {
        language.yearsAgo(years)
    }

    /// A day in words: "3 Mar 2019".
    public static func day(_ date: Date, in language: Language = .english) -> String {
        if let style = dayStyles[language] { return style.format(date) }
        let parts = UTCDateTime(date)
        return "\(parts.day) \(months[parts.month - 1]) \(parts.year)"
    }

    /// A moment in a zone's local time: "Mon 24 Nov, 09:00 (Europe/Berlin)".
    ///
    /// - Parameter name: the zone as it was named (`PostingTime.zoneName`); nil shows
    ///   `zone.displayName`.
    public static func moment(_ date: Date, in zone: TimeZone, named name: String? = nil, language: Language = .english) -> String {
        let zoneName = name ?? zone.displayName
        if let style = momentStyles[language] {
            var local = style
            local.timeZone = zone
            return "\(local.format(date)) (\(zoneName))"
        }
        let local = date.addingTimeInterval(TimeInterval(zone.secondsFromGMT(for: date)))
        let parts = UTCDateTime(local)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let time = WeeklySchedule.clock(parts.hour, parts.minute)
        return "\(days[parts.weekday - 1]) \(parts.day) \(months[parts.month - 1]), \(time) (\(zoneName))"
    }

    /// "1 play", "2 plays": English words for the operator's terminal.
    public static func count(_ n: Int, _ noun: String) -> String {
        "\(n) \(noun)\(n == 1 ? "" : "s")"
    }

    /// ICU's formats, for every language but English (and the pseudo-locale, which is English).
    private static let localized = Language.allCases.filter { $0 != .english && $0 != .pseudo }

    private static let ranges: [Language: Date.IntervalFormatStyle] = Dictionary(uniqueKeysWithValues: localized.map { language in
        (language, Date.IntervalFormatStyle(locale: language.locale, timeZone: utc).day().month(.abbreviated).year())
    })

    private static let dayStyles: [Language: Date.FormatStyle] = Dictionary(uniqueKeysWithValues: localized.map { language in
        (language, Date.FormatStyle(locale: language.locale, timeZone: utc).day().month(.abbreviated).year())
    })

    private static let momentStyles: [Language: Date.FormatStyle] = Dictionary(uniqueKeysWithValues: localized.map { language in
        (language, Date.FormatStyle(locale: language.locale, timeZone: utc).weekday(.abbreviated).day().month(.abbreviated)
            .hour(.twoDigits(amPM: .omitted)).minute(.twoDigits))
    })
}
