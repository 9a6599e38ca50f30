import Foundation

/// A time written by C's `strftime("%c")` in the C locale, `Tue Mar 14 12:00:00 2011` (the day
/// padded with a space), as GNU FM writes `profile_created`. PHP writes it in the server's
/// zone, which it does not name; it is read as UTC, PHP's usual default.
enum CTimeText {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The instant, or nil for any other text (another locale's `%c`, say).
    static func date(_ text: String) -> Date? {
        let words = text.split(separator: " ")
        guard words.count == 5, let month = months.firstIndex(of: String(words[1])),
              let day = Int(words[2]), let year = Int(words[4]), (1...31).contains(day), (1970...4999).contains(year)
        else { return nil }
        let clock = words[3].split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
        guard clock.count == 3, let hour = clock[0], let minute = clock[1], let second = clock[2],
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month + 1, day: day, hour: hour, minute: minute, second: second)
        // A day past the month's end (Feb 30) is no date, rather than the next month's.
        guard let date = calendar.date(from: components), calendar.component(.day, from: date) == day else { return nil }
        return date
    }
}
