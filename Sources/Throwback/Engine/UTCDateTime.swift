import Foundation

/// A moment as the proleptic Gregorian calendar names it in UTC, by integer arithmetic.
///
/// Every calendar date the bot works with is in UTC: chart weeks, "three years ago", stored
/// timestamps, and local wall times shifted into UTC. Foundation's `Calendar` looks up the
/// machine's time zone through ICU as soon as it is created, whatever zone it is given
/// after, and that data is a few MiB of resident memory, for arithmetic this small.
public struct UTCDateTime: Sendable, Equatable {
    public var year: Int64
    /// 1 = January … 12 = December.
    public var month: Int
    public var day: Int
    /// Seconds since midnight, with their fraction: 0 ..< 86 400.
    public var secondsIntoDay: Double

    public init(year: Int64, month: Int, day: Int, secondsIntoDay: Double = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.secondsIntoDay = secondsIntoDay
    }

    public init(_ date: Date) {
        let seconds = Self.seconds(date)
        let whole = seconds.rounded(.down)
        let (days, second) = Self.floorDivide(Int64(whole), 86_400)
        self.init(days: days, secondsIntoDay: Double(second) + (seconds - whole))
    }

    init(days: Int64, secondsIntoDay: Double) {
        // Howard Hinnant's `civil_from_days`.
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        self.init(
            year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month: Int(month),
            day: Int(dayOfYear - (153 * monthIndex + 2) / 5 + 1), secondsIntoDay: secondsIntoDay
        )
    }

    /// Days since 1 January 1970 (Hinnant's `days_from_civil`).
    public var daysSince1970: Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let monthIndex = Int64(month > 2 ? month - 3 : month + 9)
        let dayOfYear = (153 * monthIndex + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    public var date: Date {
        Date(timeIntervalSince1970: Double(daysSince1970) * 86_400 + secondsIntoDay)
    }

    /// Midnight of the same day.
    public var startOfDay: UTCDateTime {
        UTCDateTime(year: year, month: month, day: day)
    }

    /// 1 = Sunday … 7 = Saturday, as `Calendar` counts. 1 January 1970 was a Thursday.
    public var weekday: Int {
        Int(Self.floorDivide(daysSince1970 + 4, 7).remainder) + 1
    }

    public var hour: Int { Int(secondsIntoDay) / 3600 }
    public var minute: Int { Int(secondsIntoDay) / 60 % 60 }

    /// The same day and time `years` years earlier, as `Calendar` adds years: 29 February
    /// becomes the 28th in a year without it. Nil when the year does not fit.
    public func yearsEarlier(_ years: Int) -> UTCDateTime? {
        let (earlier, overflow) = year.subtractingReportingOverflow(Int64(years))
        guard !overflow, earlier.magnitude < 30_000_000 else { return nil }
        let days = Self.daysIn(month: month, of: earlier)
        return UTCDateTime(year: earlier, month: month, day: min(day, days), secondsIntoDay: secondsIntoDay)
    }

    static func daysIn(month: Int, of year: Int64) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Seconds since 1970 within about 30 million years either way: far beyond any real
    /// date, and every product of the arithmetic here stays within Int64. NaN counts as 0.
    static func seconds(_ date: Date) -> Double {
        let seconds = date.timeIntervalSince1970
        return seconds.isNaN ? 0 : min(max(seconds, -1e15), 1e15)
    }

    static func floorDivide(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let quotient = value >= 0 ? value / divisor : (value - divisor + 1) / divisor
        return (quotient, value - quotient * divisor)
    }
}
