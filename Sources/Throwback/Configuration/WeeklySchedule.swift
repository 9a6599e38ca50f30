/// When the weekly post goes out: a weekday and a local time, e.g. `mon 09:00`.
public struct WeeklySchedule: Sendable, Equatable, CustomStringConvertible {
    /// 1 = Sunday … 7 = Saturday, as `Calendar` counts.
    public var weekday: Int
    public var hour: Int
    public var minute: Int

    private static let days = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    /// The weekday of a word such as "fri" or "Friday" (at least two letters, not ambiguous),
    /// 1 = Sunday.
    public static func day(_ word: String) -> Int? {
        let names = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
        let word = word.lowercased()
        guard word.count >= 2 else { return nil }
        let matches = names.indices.filter { names[$0].hasPrefix(word) }
        return matches.count == 1 ? matches[0] + 1 : nil
    }

    public init?(_ text: String) {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, let day = Self.day(String(parts[0])) else { return nil }
        let time = parts[1].split(separator: ":")
        guard time.count == 2, let hour = Int(time[0]), let minute = Int(time[1]),
              (0..<24).contains(hour), (0..<60).contains(minute) else { return nil }
        self.weekday = day
        self.hour = hour
        self.minute = minute
    }

    public var description: String {
        "\(Self.days[weekday - 1]) \(Self.clock(hour, minute))"
    }

    /// "09:05".
    static func clock(_ hour: Int, _ minute: Int) -> String {
        (hour < 10 ? "0\(hour)" : "\(hour)") + ":" + (minute < 10 ? "0\(minute)" : "\(minute)")
    }
}
