import Foundation
import LastFM
import Networking
import Testing
import TestSupport
import Throwback
import TestLogging
import WeeklyCharts

/// Libre.fm answered as GNU FM answers: errors with HTTP 200 in two shapes, error 7 for an
/// empty page and for an unknown user, `totalPages` counting every scrobble, exclusive bounds,
/// and the track playing now on page 1.
@Suite(.capturingLogs, .timeLimit(.minutes(2))) struct LibreFMTests {
    /// The week that "1 year ago" means at `BotHarness.now`.
    static let week: WeeklyChartRange = {
        let start = LastFMWeek.start(of: WeekFinder.date(yearsBefore: BotHarness.now, years: 1))
        return WeeklyChartRange(from: start, to: start.addingTimeInterval(LastFMWeek.length))
    }()

    /// `count` scrobbles of one album inside `week`, the first at its very first second.
    static func scrobbles(_ count: Int, _ artist: String, _ album: String, from start: Int = week.fromUnix) -> [FakeLibreFM.Scrobble] {
        (0..<count).map { (at: start + $0 * 60, artist: artist, album: album) }
    }

    /// Scrobbles in the weeks around `week`, so that the user's `totalPages` runs far past it.
    static let otherWeeks: [FakeLibreFM.Scrobble] =
        scrobbles(600, "Before", "Earlier Week", from: week.fromUnix - 604_800) + scrobbles(600, "After", "Later Week", from: week.toUnix)
        + [(at: week.fromUnix - 1, artist: "Edge", album: "Second Before"), (at: week.toUnix, artist: "Edge", album: "Next Week's First Second")]

    @Test func weeksOf150And430ScrobblesAnEmptyWeekAndAnUnknownNameAndTheBreakerStaysClosed() async throws {
        let harness = try await SourcesHarness.start()
        let created = Self.week.fromUnix - 400 * 86_400
        await harness.libreFM.addUser("Few", created: created, scrobbles: Self.scrobbles(150, "Stereolab", "Dots and Loops") + Self.otherWeeks,
                                      nowPlaying: ("Playing", "Right Now"))
        await harness.libreFM.addUser("Many", created: created, scrobbles:
            Self.scrobbles(400, "Broadcast", "Tender Buttons") + Self.scrobbles(30, "Broadcast", "Haha Sound", from: Self.week.fromUnix + 400 * 60)
            + Self.otherWeeks, nowPlaying: ("Playing", "Right Now"))
        await harness.libreFM.addUser("Quiet", created: created, scrobbles: Self.otherWeeks)
        let store = try BotStore(path: harness.base.databasePath)
        let session = harness.assembly().terminal(store: store)

        let quiet = await harness.reply("throwback librefm:quiet 1", session)
        #expect(quiet.contains("No scrobbles that week."), "\(quiet)")
        for _ in 1...3 {
            #expect(await harness.reply("throwback librefm:nobody 1", session) == "No Libre.fm user is called “nobody”.")
        }
        #expect(await harness.reply("track librefm:NOBODY", session).hasPrefix("No Libre.fm user is called “NOBODY”."))

        // Five error 7s in a row left the breaker closed: Libre.fm is still asked, and answers.
        let few = await harness.reply("throwback librefm:few 1", session)
        #expect(few.contains("Dots and Loops (150 plays)"), "\(few)")
        let many = await harness.reply("throwback librefm:many 1", session)
        #expect(many.contains("Tender Buttons (400 plays)") && many.contains("Haha Sound (30 plays)"), "\(many)")
        for text in [few, many] {
            for other in ["Right Now", "Earlier Week", "Later Week", "Second Before", "Next Week"] { #expect(!text.contains(other), "\(text)") }
        }
        // The empty week is one page; 150 scrobbles one; 430 three (200, 200, 30): never a page past the week's last.
        #expect(await harness.libreFM.pagesAsked == [1, 1, 1, 2, 3])
        #expect(!harness.base.logs.text.contains("Libre.fm keeps failing"))
        await harness.stop()
    }

    @Test func aProfileDateInAnotherLocaleStartsTheWeeksAtTheOldestScrobble() async throws {
        let harness = try await SourcesHarness.start()
        let oldest = Self.week.fromUnix - 3 * 604_800 + 5
        await harness.libreFM.addUser("Polyglot", created: 0, createdText: "Di 14 Mär 2011 12:00:00 CET", scrobbles:
            Self.scrobbles(3, "Can", "Tago Mago") + [(at: oldest, artist: "Can", album: "Monster Movie")], nowPlaying: ("Can", "Soon Over Babaluma"))
        await harness.libreFM.addUser("Dated", created: Self.week.fromUnix - 2 * 604_800, scrobbles: Self.scrobbles(2, "Can", "Ege Bamyasi"))
        let store = try BotStore(path: harness.base.databasePath)
        let listening = harness.assembly().listening(lastFM: NoLastFMNeeded(), store: store)

        let weeks = try await listening.weeks(of: "librefm:polyglot")
        #expect(weeks.first?.from == LastFMWeek.start(of: Date(timeIntervalSince1970: TimeInterval(oldest))))
        // The newest scrobble (after the track playing now) tells how many there are; the last page holds the oldest.
        #expect(await harness.libreFM.pagesAsked == [1, 4])
        let dated = try await listening.weeks(of: "librefm:dated")
        #expect(dated.first?.from == LastFMWeek.start(of: Date(timeIntervalSince1970: TimeInterval(Self.week.fromUnix - 2 * 604_800))))
        #expect(await harness.libreFM.pagesAsked == [1, 4])
        await harness.stop()
    }
}

/// A Last.fm client for tests that ask other sources only.
private struct NoLastFMNeeded: LastFMClient {
    func send<Response>(_ call: LastFMCall<Response>) async throws -> Response {
        throw ListeningError("Last.fm", .transport("Last.fm is not part of this test"))
    }
}
