import Foundation

/// A weekly schedule in a time zone: when a chat's weekly post is due, as instants.
///
/// It keeps the local time across daylight-saving changes. On the day the clocks go
/// forward, a time that does not exist (02:30 in Berlin) is taken with the offset before the
/// change, so it falls as long after the jump as it would have without it (03:30). On the
/// day they go back, a time that happens twice is taken the first time.
public struct PostingTime: Sendable, Equatable, CustomStringConvertible {
    public var schedule: WeeklySchedule
    public var zone: TimeZone
    /// The zone as the configuration or the chat's admin named it, to show: "UTC" stays
    /// "UTC", although `zone` is Foundation's "GMT" then.
    public var zoneName: String

    /// - Parameter zoneName: the name `zone` was given; nil shows `zone.displayName`.
    public init(schedule: WeeklySchedule, zone: TimeZone, zoneName: String? = nil) {
        self.schedule = schedule
        self.zone = zone
        self.zoneName = zoneName ?? zone.displayName
    }

    /// The schedule in the zone called `name`, which is kept to show; nil if no zone is called that.
    public init?(schedule: WeeklySchedule, zoneNamed name: String) {
        guard let zone = TimeZone.named(name) else { return nil }
        self.init(schedule: schedule, zone: zone, zoneName: name)
    }

    private static let day: TimeInterval = 24 * 3600

    /// The first instant strictly after `date` when the post is due.
    public func next(after date: Date) -> Date {
        for offset in 0...8 {
            if let instant = instant(onLocalDayOf: date, plus: offset), instant > date { return instant }
        }
        return date.addingTimeInterval(7 * Self.day)
    }

    /// The last instant at or before `date` when the post was due.
    public func previous(atOrBefore date: Date) -> Date {
        for offset in 0...8 {
            if let instant = instant(onLocalDayOf: date, plus: -offset), instant <= date { return instant }
        }
        return date.addingTimeInterval(-7 * Self.day)
    }

    public var description: String { "\(schedule) \(zoneName)" }

    /// `date` in this schedule's zone, as the weekly replies say it: "Mon 30 Nov, 09:00 (UTC)".
    public func moment(_ date: Date, in language: Language = .english) -> String {
        WeekDescription.moment(date, in: zone, named: zoneName, language: language)
    }

    /// The scheduled instant on the local day `days` after the one holding `date`, if that
    /// day is the schedule's weekday.
    private func instant(onLocalDayOf date: Date, plus days: Int) -> Date? {
        // Local wall time as if it were UTC, so that a UTC calendar reads its day and weekday.
        let wall = date.addingTimeInterval(TimeInterval(zone.secondsFromGMT(for: date)))
        let midnight = UTCDateTime(wall).startOfDay.date.addingTimeInterval(TimeInterval(days) * Self.day)
        guard UTCDateTime(midnight).weekday == schedule.weekday else { return nil }
        let local = midnight.addingTimeInterval(TimeInterval(schedule.hour * 3600 + schedule.minute * 60))
        return resolve(local)
    }

    /// The instant of a local wall time (expressed as if UTC), per the rules above.
    private func resolve(_ local: Date) -> Date {
        let before = TimeInterval(zone.secondsFromGMT(for: local.addingTimeInterval(-Self.day)))
        let after = TimeInterval(zone.secondsFromGMT(for: local.addingTimeInterval(Self.day)))
        let candidates = [local.addingTimeInterval(-before), local.addingTimeInterval(-after)]
        let valid = candidates.filter { TimeInterval(zone.secondsFromGMT(for: $0)) == local.timeIntervalSince($0) }
        // Repeated: the first; skipped: the offset before the change.
        return valid.min() ?? candidates[0]
    }
}
