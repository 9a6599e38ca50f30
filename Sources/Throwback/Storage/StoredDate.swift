import Foundation

/// A date as the store keeps it, `yyyy-MM-dd HH:mm:ss.SSS` in UTC, worked out with integer
/// arithmetic: the text GRDB writes, so that rows written before and after compare and sort
/// alike, in either engine.
///
/// GRDB's own conversion goes through `DateFormatter`, and so through ICU: it cost more than
/// the rest of the journal's write for each reply, and loading ICU's locale, calendar and
/// currency data is a few MiB of the bot's resident memory. Every date the bot stores or
/// reads goes through this type instead (`StoreValue.date`, `Date(storeValue:)`).
enum StoredDate {
    static func text(_ date: Date) -> String {
        // Whole milliseconds, rounded to the nearest as `DateFormatter` does.
        let milliseconds = Int64((UTCDateTime.seconds(date) * 1000).rounded())
        let (seconds, millisecond) = UTCDateTime.floorDivide(milliseconds, 1000)
        let (days, second) = UTCDateTime.floorDivide(seconds, 86_400)
        let day = UTCDateTime(days: days, secondsIntoDay: Double(second))
        // Each field's digits written into their places in one buffer: a date is written for
        // nearly every statement the bot runs, and a string per field, padded and joined, cost
        // 2% of a warm update's CPU.
        var text = Array("0000-00-00 00:00:00.000".utf8)
        func put(_ value: Int64, endingAt last: Int, digits: Int) {
            var value = value
            for place in stride(from: last, to: last - digits, by: -1) {
                text[place] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
        }
        // Years before 1 AD never come up (dates are now, or a Last.fm week).
        let year = Int64(day.year.magnitude)
        put(year % 10_000, endingAt: 3, digits: 4)
        put(Int64(day.month), endingAt: 6, digits: 2)
        put(Int64(day.day), endingAt: 9, digits: 2)
        put(second / 3600, endingAt: 12, digits: 2)
        put(second / 60 % 60, endingAt: 15, digits: 2)
        put(second % 60, endingAt: 18, digits: 2)
        put(millisecond, endingAt: 22, digits: 3)
        let written = String(decoding: text, as: UTF8.self)
        // A year past 9999 keeps every digit.
        return year < 10_000 ? written : String(year / 10_000) + written
    }
}

extension StoredDate {
    /// The date a stored text stands for: `yyyy-MM-dd`, then optionally ` HH:mm`, `:ss` and
    /// a fraction (a `T` may stand for the space, a `Z` may end it), as GRDB read dates.
    /// Nil for anything else.
    static func date(_ text: String) -> Date? {
        var text = text
        // Read in place, byte by byte, with nothing allocated: a date is read for every
        // message the outbox scans.
        return text.withUTF8 { bytes in
            var reader = DateReader(bytes: bytes)
            return reader.date()
        }
    }
}

/// Reads `StoredDate.date`'s forms from UTF-8 bytes, left to right.
private struct DateReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var at = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func date() -> Date? {
        guard let year = number(4), skip(UInt8(ascii: "-")), let month = number(2), skip(UInt8(ascii: "-")), let day = number(2),
              (1...12).contains(month.value), (1...31).contains(day.value)
        else { return nil }
        var seconds = 0.0
        if skip(UInt8(ascii: " ")) || skip(UInt8(ascii: "T")) {
            guard let hour = number(2), skip(UInt8(ascii: ":")), let minute = number(2) else { return nil }
            seconds = Double(hour.value * 3600 + minute.value * 60)
            if skip(UInt8(ascii: ":")) {
                guard let second = number(2) else { return nil }
                seconds += Double(second.value)
                if skip(UInt8(ascii: ".")) {
                    guard let fraction = number(nil) else { return nil }
                    var scale = 1.0
                    for _ in 0..<fraction.digits { scale *= 10 }
                    seconds += Double(fraction.value) / scale
                }
            }
        }
        _ = skip(UInt8(ascii: "Z"))
        guard at == bytes.count else { return nil }
        return UTCDateTime(year: year.value, month: Int(month.value), day: Int(day.value), secondsIntoDay: seconds).date
    }

    /// Reads exactly `count` digits, or as many as follow (at most 18) with `count` nil.
    private mutating func number(_ count: Int?) -> (value: Int64, digits: Int)? {
        var (value, read) = (Int64(0), 0)
        while at < bytes.count, bytes[at] >= UInt8(ascii: "0"), bytes[at] <= UInt8(ascii: "9"), read < (count ?? 18) {
            value = value * 10 + Int64(bytes[at] - UInt8(ascii: "0"))
            read += 1
            at += 1
        }
        return read == 0 || (count != nil && read != count) ? nil : (value, read)
    }

    private mutating func skip(_ separator: UInt8) -> Bool {
        guard at < bytes.count, bytes[at] == separator else { return false }
        at += 1
        return true
    }
}
