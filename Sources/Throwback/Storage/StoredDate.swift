import Foundation
import GRDB

/// A date as GRDB stores it, `yyyy-MM-dd HH:mm:ss.SSS` in UTC, worked out with integer arithmetic.
///
/// GRDB's own conversion goes through `DateFormatter`, and so through ICU: it cost more than
/// the rest of the journal's write for each reply, and loading ICU's locale, calendar and
/// currency data is a few MiB of the bot's resident memory. Every date the bot stores
/// goes through this type instead (SQL arguments, and records by `StoresDates`). The text is
/// the same, so rows written either way compare and sort alike.
struct StoredDate: DatabaseValueConvertible {
    var date: Date

    init(_ date: Date) {
        self.date = date
    }

    var databaseValue: DatabaseValue { Self.text(date).databaseValue }

    /// Reading has no ICU cost: GRDB parses the text itself.
    static func fromDatabaseValue(_ value: DatabaseValue) -> StoredDate? {
        Date.fromDatabaseValue(value).map(StoredDate.init)
    }

    static func text(_ date: Date) -> String {
        // Whole milliseconds, rounded to the nearest as `DateFormatter` does.
        let milliseconds = Int64((UTCDateTime.seconds(date) * 1000).rounded())
        let (seconds, millisecond) = UTCDateTime.floorDivide(milliseconds, 1000)
        let (days, second) = UTCDateTime.floorDivide(seconds, 86_400)
        let day = UTCDateTime(days: days, secondsIntoDay: Double(second))
        func padded(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        // Years before 1 AD never come up (dates are now, or a Last.fm week).
        return padded(Int64(day.year.magnitude), 4) + "-" + padded(Int64(day.month), 2) + "-" + padded(Int64(day.day), 2)
            + " " + padded(second / 3600, 2) + ":" + padded(second / 60 % 60, 2) + ":" + padded(second % 60, 2) + "." + padded(millisecond, 3)
    }
}

/// A record whose `Date` properties are written by `StoredDate`, not GRDB's `DateFormatter`.
public protocol StoresDates: EncodableRecord {}

extension StoresDates {
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .custom { StoredDate($0) }
    }
}
