import Foundation
import Testing
import Throwback
import TestLogging

private func date(_ unix: Int) -> Date { Date(timeIntervalSince1970: TimeInterval(unix)) }

private func time(_ schedule: String, _ zone: String) -> PostingTime {
    PostingTime(schedule: WeeklySchedule(schedule)!, zone: TimeZone(identifier: zone)!)
}

@Suite(.capturingLogs) struct PostingTimeTests {
    @Test(arguments: [
        // Berlin, spring: 02:30 does not exist on 29 Mar 2026; it falls an hour after, 03:30 CEST.
        ("sun 02:30", "Europe/Berlin", 1_774_699_200, 1_774_747_800),
        // Berlin, autumn: 02:30 happens twice on 25 Oct 2026; the first time, CEST.
        ("sun 02:30", "Europe/Berlin", 1_792_843_200, 1_792_888_200),
        // Berlin keeps 09:00 local on the Mondays either side of the change: 08:00Z, then 07:00Z.
        ("mon 09:00", "Europe/Berlin", 1_774_252_800 - 60, 1_774_252_800),
        ("mon 09:00", "Europe/Berlin", 1_774_252_800, 1_774_854_000),
        // New York, spring: 02:30 does not exist on 8 Mar 2026; 03:30 EDT.
        ("sun 02:30", "America/New_York", 1_772_884_800, 1_772_955_000),
        // New York, autumn: 01:30 happens twice on 1 Nov 2026; the first time, EDT.
        ("sun 01:30", "America/New_York", 1_793_448_000, 1_793_511_000),
        ("mon 09:00", "America/New_York", 1_772_460_000 - 60, 1_772_460_000),
        ("mon 09:00", "America/New_York", 1_772_460_000, 1_773_061_200),
    ])
    func theNextPostKeepsLocalTimeAcrossDaylightSaving(schedule: String, zone: String, after: Int, expected: Int) {
        let posting = time(schedule, zone)
        #expect(posting.next(after: date(after)) == date(expected))
        #expect(posting.previous(atOrBefore: date(expected)) == date(expected))
        #expect(posting.previous(atOrBefore: date(expected - 1)) < date(expected - 6 * 24 * 3600))
    }

    /// Foundation calls the zone `TimeZone.named("UTC")` gives "GMT"; people see the name they wrote.
    @Test(arguments: ["UTC", "GMT", "Etc/UTC", "Europe/Berlin"])
    func theZoneIsShownAsItWasNamed(name: String) throws {
        let monday = try #require(WeeklySchedule("mon 09:00"))
        let time = try #require(PostingTime(schedule: monday, zoneNamed: name))
        #expect(time.description == "mon 09:00 \(name)")
        // Mon 30 Nov 2026, 09:00 UTC.
        let local = name == "Europe/Berlin" ? "10:00" : "09:00"
        #expect(WeekDescription.moment(date(1_796_029_200), in: time.zone, named: time.zoneName) == "Mon 30 Nov, \(local) (\(name))")
    }

    @Test func aZoneWithoutAGivenNameShowsUTCNotGMT() throws {
        let utc = try #require(TimeZone.named("UTC"))
        #expect(PostingTime(schedule: try #require(WeeklySchedule("mon 09:00")), zone: utc).description == "mon 09:00 UTC")
        #expect(WeekDescription.moment(date(1_796_029_200), in: utc) == "Mon 30 Nov, 09:00 (UTC)")
        #expect(PostingTime(schedule: try #require(WeeklySchedule("mon 09:00")), zoneNamed: "Mars/Olympus_Mons") == nil)
    }

    @Test func daysAndTimesAreReadLeniently() {
        #expect(WeeklySchedule("Friday 18:30")?.description == "fri 18:30")
        #expect(WeeklySchedule("tu 7:05")?.description == "tue 07:05")
        for bad in ["t 09:00", "someday 09:00", "mon 24:00", "mon 9", "mon 09:60", "mon"] {
            #expect(WeeklySchedule(bad) == nil, "\(bad)")
        }
    }

    @Test func theDueInstantLastsUntilTheLastFMWeekIsOver() {
        let calendar = WeeklyCalendar(defaultTime: time("mon 09:00", "UTC"), defaultChat: -1)
        let settings = ChatSettings(id: -1)
        // Due Monday 16 Nov 09:00; still due on Wednesday; the Last.fm week ends Sunday 12:00.
        #expect(calendar.dueInstant(for: settings, now: date(1_794_996_000)) == date(1_794_819_600))
        #expect(calendar.dueInstant(for: settings, now: date(1_795_352_400 - 3600 - 1)) == date(1_794_819_600))
        #expect(calendar.dueInstant(for: settings, now: date(1_795_352_400)) == nil)
        #expect(calendar.dueInstant(for: settings, now: date(1_795_424_400)) == date(1_795_424_400))
    }

    @Test func onlyTheConfiguredChatIsOnByDefault() {
        #expect(ChatSettings(id: -1).weeklyPostIsOn(defaultChat: -1))
        #expect(!ChatSettings(id: -2).weeklyPostIsOn(defaultChat: -1))
        #expect(!ChatSettings(id: -1, weeklyPost: false).weeklyPostIsOn(defaultChat: -1))
        #expect(ChatSettings(id: -2, weeklyPost: true).weeklyPostIsOn(defaultChat: -1))
        #expect(!ChatSettings(id: -2, weeklyPost: true, active: false).weeklyPostIsOn(defaultChat: -1))
    }
}
