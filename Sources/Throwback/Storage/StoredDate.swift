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
        // Digits appended to one buffer: a date is written for nearly every statement the
        // bot runs, and a string per field, padded and joined, cost 2% of a warm update's CPU.
        var text: [UInt8] = []
        text.reserveCapacity(23)
        func append(_ value: Int64, width: Int, then separator: UInt8? = nil) {
            var scale: Int64 = 1
            for _ in 1..<width { scale *= 10 }
            // A value wider than `width` keeps every digit.
            while value / scale >= 10 { scale *= 10 }
            while scale > 0 {
                text.append(UInt8(ascii: "0") + UInt8(value / scale % 10))
                scale /= 10
            }
            if let separator { text.append(separator) }
        }
        // Years before 1 AD never come up (dates are now, or a Last.fm week).
        append(Int64(day.year.magnitude), width: 4, then: UInt8(ascii: "-"))
        append(Int64(day.month), width: 2, then: UInt8(ascii: "-"))
        append(Int64(day.day), width: 2, then: UInt8(ascii: " "))
        append(second / 3600, width: 2, then: UInt8(ascii: ":"))
        append(second / 60 % 60, width: 2, then: UInt8(ascii: ":"))
        append(second % 60, width: 2, then: UInt8(ascii: "."))
        append(millisecond, width: 3)
        return String(decoding: text, as: UTF8.self)
    }
}

/// A record whose `Date` properties are written by `StoredDate`, not GRDB's `DateFormatter`.
public protocol StoresDates: EncodableRecord {}

extension StoresDates {
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .custom { StoredDate($0) }
    }
}
