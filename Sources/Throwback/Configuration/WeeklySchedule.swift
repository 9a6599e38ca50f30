/// When the weekly post goes out: a weekday and a local time, e.g. `mon 09:00`.
public struct WeeklySchedule: Sendable, Equatable, CustomStringConvertible {
    /// 1 = Sunday … 7 = Saturday, as `Calendar` counts.
    public var weekday: Int
    public var hour: Int
    public var minute: Int

    private static let days = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    public init?(_ text: String) {
        let parts = text.lowercased().split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, let day = Self.days.firstIndex(where: { parts[0].hasPrefix($0) }) else { return nil }
        let time = parts[1].split(separator: ":")
        guard time.count == 2, let hour = Int(time[0]), let minute = Int(time[1]),
              (0..<24).contains(hour), (0..<60).contains(minute) else { return nil }
        self.weekday = day + 1
        self.hour = hour
        self.minute = minute
    }

    public var description: String {
        let hh = hour < 10 ? "0\(hour)" : "\(hour)"
        let mm = minute < 10 ? "0\(minute)" : "\(minute)"
        return "\(Self.days[weekday - 1]) \(hh):\(mm)"
    }
}
