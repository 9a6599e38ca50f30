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
        // Written digit by digit into the string's own storage: every stored row has a date or two.
        // Years before 1 AD never come up (dates are now, or a Last.fm week): four digits or more.
        let fields: [(value: Int64, width: Int, separator: UInt8)] = [
            (Int64(day.year.magnitude), max(4, Self.digits(Int64(day.year.magnitude))), UInt8(ascii: "-")),
            (Int64(day.month), 2, UInt8(ascii: "-")), (Int64(day.day), 2, UInt8(ascii: " ")), (Int64(day.hour), 2, UInt8(ascii: ":")),
            (Int64(day.minute), 2, UInt8(ascii: ":")), (second % 60, 2, UInt8(ascii: ".")), (millisecond, 3, 0),
        ]
        return String(unsafeUninitializedCapacity: fields.reduce(0) { $0 + $1.width + 1 }) { out in
            var position = 0
            for field in fields {
                var value = field.value
                for digit in (position..<(position + field.width)).reversed() {
                    out[digit] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
                position += field.width
                if field.separator != 0 {
                    out[position] = field.separator
                    position += 1
                }
            }
            return position
        }
    }

    private static func digits(_ value: Int64) -> Int {
        var (value, count) = (value, 1)
        while value >= 10 {
            value /= 10
            count += 1
        }
        return count
    }
}

/// A record whose `Date` properties are written by `StoredDate`, not GRDB's `DateFormatter`.
public protocol StoresDates: EncodableRecord {}

extension StoresDates {
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .custom { StoredDate($0) }
    }
}
