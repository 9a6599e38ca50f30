import Foundation
import GRDB

/// A date as GRDB stores it, `yyyy-MM-dd HH:mm:ss.SSS` in UTC, written with integer arithmetic.
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
        var text = ""
        text.reserveCapacity(23)
        append(day.year, width: 4, to: &text)
        text += "-"
        append(day.month, width: 2, to: &text)
        text += "-"
        append(day.day, width: 2, to: &text)
        text += " "
        append(day.hour, width: 2, to: &text)
        text += ":"
        append(day.minute, width: 2, to: &text)
        text += ":"
        append(second % 60, width: 2, to: &text)
        text += "."
        append(millisecond, width: 3, to: &text)
        return text
    }

    private static func append(_ value: some BinaryInteger, width: Int, to text: inout String) {
        let digits = String(value)
        if digits.count < width { text += String(repeating: "0", count: width - digits.count) }
        text += digits
    }
}

/// A record whose `Date` properties are written by `StoredDate`, not GRDB's `DateFormatter`.
public protocol StoresDates: EncodableRecord {}

extension StoresDates {
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .custom { StoredDate($0) }
    }
}
