import Foundation
import Testing
import Throwback

/// `UTCDateTime` replaced Foundation's Gregorian calendar in UTC; these hold it to that
/// calendar's answers. Foundation's calendar turns Julian before October 1582 and ours stays
/// Gregorian, so the comparisons keep to later dates; Last.fm began in 2002.
@Suite struct UTCDateTimeTests {
    private static let gregorian: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// Leap days, the turn of centuries and years, the epoch and before it, sub-second
    /// times, and a spread of instants over six centuries.
    private static let instants: [Double] = [
        0, -0.25, -1, -86_400, -86_401, 59.999, 86_399.5, 951_782_400, 951_868_799.75, 1_709_208_000.123,
        1_709_164_800, 946_684_799, 946_684_800, 4_107_542_400, -2_203_891_200, -11_644_473_600, 1_700_395_200,
    ] + (0..<400).map { Double($0) * 47_303_143.37 - 9_000_000_000 }

    @Test func componentsAndWeekdayMatchFoundationsCalendar() {
        for seconds in Self.instants {
            let date = Date(timeIntervalSince1970: seconds)
            let parts = Self.gregorian.dateComponents([.year, .month, .day, .hour, .minute, .weekday], from: date)
            let ours = UTCDateTime(date)
            #expect(
                [Int(ours.year), ours.month, ours.day, ours.hour, ours.minute, ours.weekday]
                    == [parts.year, parts.month, parts.day, parts.hour, parts.minute, parts.weekday].map { $0! },
                "at \(seconds)"
            )
            #expect(ours.date == date, "round trip at \(seconds)")
            #expect(ours.startOfDay.date == Self.gregorian.startOfDay(for: date), "midnight at \(seconds)")
        }
    }

    @Test func yearsEarlierMatchesFoundationsCalendar() {
        for seconds in Self.instants {
            let date = Date(timeIntervalSince1970: seconds)
            for years in [1, 3, 4, 100, 400] where UTCDateTime(date).year - Int64(years) >= 1600 {
                #expect(
                    UTCDateTime(date).yearsEarlier(years)?.date == Self.gregorian.date(byAdding: .year, value: -years, to: date),
                    "\(years) years before \(seconds)"
                )
            }
        }
    }

    @Test func theTwentyNinthOfFebruaryFallsBackToTheTwentyEighth() {
        let leapDay = UTCDateTime(year: 2024, month: 2, day: 29, secondsIntoDay: 45_000.5)
        #expect(leapDay.yearsEarlier(1) == UTCDateTime(year: 2023, month: 2, day: 28, secondsIntoDay: 45_000.5))
        #expect(leapDay.yearsEarlier(4) == UTCDateTime(year: 2020, month: 2, day: 29, secondsIntoDay: 45_000.5))
    }

    @Test func absurdYearsGiveNothingInsteadOfTrapping() {
        let now = UTCDateTime(Date(timeIntervalSince1970: 1_700_000_000))
        #expect(now.yearsEarlier(Int.max) == nil)
        #expect(now.yearsEarlier(Int.min) == nil)
        #expect(UTCDateTime(.distantFuture).year > 2026)
        #expect(UTCDateTime(Date(timeIntervalSince1970: .infinity)).year > 2026)
        #expect(UTCDateTime(Date(timeIntervalSince1970: -.infinity)).year < 0)
        #expect(UTCDateTime(Date(timeIntervalSince1970: .nan)) == UTCDateTime(year: 1970, month: 1, day: 1))
    }

    @Test func utcAndGMTNeedNoZoneDatabase() {
        for name in ["UTC", "GMT", "Etc/UTC", "Etc/GMT"] {
            #expect(TimeZone.named(name) == .gmt)
        }
        #expect(TimeZone.named("Europe/Berlin")?.identifier == "Europe/Berlin")
        #expect(TimeZone.named("Mars/Olympus_Mons") == nil)
    }
}
