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
        String(unsafeUninitializedCapacity: maxLength) { write(date, into: $0) }
    }

    /// The most bytes `write` writes: a year of up to 19 digits, and the rest.
    static let maxLength = 38

    /// Writes the date's text into `out` (at least `maxLength` bytes), digit by digit, and
    /// returns its length: bound straight from there, a date in a row allocates nothing.
    static func write(_ date: Date, into out: UnsafeMutableBufferPointer<UInt8>) -> Int {
        // Whole milliseconds, rounded to the nearest as `DateFormatter` does.
        let milliseconds = Int64((UTCDateTime.seconds(date) * 1000).rounded())
        let (seconds, millisecond) = UTCDateTime.floorDivide(milliseconds, 1000)
        let (days, second) = UTCDateTime.floorDivide(seconds, 86_400)
        let day = UTCDateTime(days: days, secondsIntoDay: Double(second))
        // Years before 1 AD never come up (dates are now, or a Last.fm week): four digits or more.
        let year = Int64(day.year.magnitude)
        var position = 0
        func field(_ value: Int64, width: Int, then separator: UInt8?) {
            var value = value
            for digit in (position..<(position + width)).reversed() {
                out[digit] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
            position += width
            if let separator {
                out[position] = separator
                position += 1
            }
        }
        field(year, width: max(4, Self.digits(year)), then: UInt8(ascii: "-"))
        field(Int64(day.month), width: 2, then: UInt8(ascii: "-"))
        field(Int64(day.day), width: 2, then: UInt8(ascii: " "))
        field(second / 3600, width: 2, then: UInt8(ascii: ":"))
        field(second / 60 % 60, width: 2, then: UInt8(ascii: ":"))
        field(second % 60, width: 2, then: UInt8(ascii: "."))
        field(millisecond, width: 3, then: nil)
        return position
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
