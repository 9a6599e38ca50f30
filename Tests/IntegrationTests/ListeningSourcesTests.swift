import Clocks
import Foundation
import LastFM
import ListenBrainz
import Networking
import Testing
import TestSupport
import Throwback
import TestLogging

/// The Last.fm and Telegram fakes of `BotHarness`, with a ListenBrainz and a Libre.fm beside them.
struct SourcesHarness {
    static let admin: Int64 = 7
    /// The week a weekly post due at `BotHarness.now` is about.
    static let week = WeeklyPostComposer.week(at: BotHarness.now)
    static var weekStart: Int { week.fromUnix }

    let base: BotHarness
    let listenBrainz: FakeListenBrainz
    let libreFM: FakeLibreFM
    let listenBrainzURL: URL
    let libreFMURL: URL

    static func start() async throws -> SourcesHarness {
        let base = try await BotHarness.start()
        let listenBrainz = FakeListenBrainz()
        let libreFM = FakeLibreFM()
        return SourcesHarness(
            base: base, listenBrainz: listenBrainz, libreFM: libreFM,
            listenBrainzURL: try await listenBrainz.start(), libreFMURL: try await libreFM.start()
        )
    }

    func stop() async {
        await listenBrainz.stop()
        await libreFM.stop()
        await base.stop()
    }

    func configuration() -> BotConfiguration {
        var configuration = base.configuration(admins: [Self.admin])
        configuration.listenBrainzAPIURL = listenBrainzURL
        configuration.libreFMAPIURL = libreFMURL
        configuration.listenBrainzToken = Secret("lb-token-5e1f")
        return configuration
    }

    func assembly(breakerClock: any Clock<Duration> = ContinuousClock()) -> BotAssembly {
        BotAssembly(
            configuration: configuration(), lastFMTransport: base.transport, lastFMKey: Secret(BotHarness.lastFMKey),
            options: .init(clock: ImmediateClock(), breakerClock: breakerClock, now: { BotHarness.now }, makeLogger: { [logs = base.logs] in logs.logger($0) })
        )
    }

    /// A console chat with the bot, as admin.
    func reply(_ text: String, _ session: BotAssembly.TerminalSession) async -> String {
        let context = CommandInvocation(chatID: Self.admin, isPrivateChat: true, userID: Self.admin)
        return await session.commands.router.reply(to: text, context: context)?.rendered(with: .plain) ?? ""
    }

    /// `count` listens of one album spread over the post's week, newest first in time order.
    static func listens(
        _ count: Int, artist: String, release: String?, inWeekStarting start: Int = weekStart,
        mapping: (releaseMBID: String, caaID: Int?, caaReleaseMBID: String?)? = nil
    ) -> [FakeListenBrainz.FakeListen] {
        (0..<count).map { index in
            FakeListenBrainz.FakeListen(at: start + 60 + index * (604_000 / max(count, 1)), artist: artist, release: release, mapping: mapping)
        }
    }
}

@Suite(.capturingLogs, .timeLimit(.minutes(2))) struct ListeningSourcesTests {
    static let mbid = "8c1fd6e4-4c8f-4a8f-9a3e-1d2b3c4d5e6f"

    @Test func aMixedRosterGetsOnePostOfOneWeekWithEachUsersOwnAlbums() async throws {
        let harness = try await SourcesHarness.start()
        let week = SourcesHarness.week
        await harness.base.lastFM.setAlbumChart(user: "alice", from: week.fromUnix, to: week.toUnix, albums: [("Radiohead", "OK Computer", 5)])
        await harness.listenBrainz.addUser("Bob", listens:
            SourcesHarness.listens(4, artist: "Boards of Canada", release: "Geogaddi", mapping: (Self.mbid, 123, Self.mbid))
            + SourcesHarness.listens(2, artist: "Burial", release: "Untrue")
            + SourcesHarness.listens(3, artist: "Later", release: "Next Week", inWeekStarting: week.toUnix)
            + SourcesHarness.listens(1, artist: "Earlier", release: "Two Years Ago", inWeekStarting: week.fromUnix - 52 * 604_800))
        await harness.libreFM.addUser("carol", created: week.fromUnix - 400 * 86_400, scrobbles:
            (0..<450).map { (at: week.fromUnix + 1000 + $0, artist: "Stereolab", album: "Dots and Loops") }
            + [(at: week.fromUnix - 10, artist: "Nope", album: "Wrong Week"), (at: week.toUnix, artist: "Nope", album: "Next Week")])
        let store = try BotStore(path: harness.base.databasePath)
        _ = try await store.addToRoster(["alice", "lb:Bob", "librefm:carol"], chat: -9001, limit: 50)
        try await store.updateSettings(for: -9001) { $0.weeklyPost = true }

        let services = harness.assembly().services(telegramTransport: harness.base.transport, token: Secret(harness.base.telegram.token), store: store)
        let text = try await services.preview.draft(chat: -9001, dueAt: BotHarness.now).text
        for expected in ["alice", "OK Computer", "lb:Bob", "Geogaddi", "Untrue", "librefm:carol", "Dots and Loops"] {
            #expect(text.contains(expected), "missing \(expected) in \(text)")
        }
        for unexpected in ["Next Week", "Two Years Ago", "Wrong Week", "lastfm:"] { #expect(!text.contains(unexpected)) }
        #expect(await services.poster.post(chat: -9001, dueAt: BotHarness.now).posted == [1, 3])
        // Libre.fm was never asked for a weekly chart; ListenBrainz never for more than 1000 listens.
        #expect(await harness.libreFM.methods.allSatisfy { !$0.contains("weekly") })
        #expect(await harness.listenBrainz.badRequests == 0)
        #expect(await harness.listenBrainz.calls.allSatisfy { $0.authorization == "Token lb-token-5e1f" })
        // Carol's 450 scrobbles are three pages of 200, once: the built weeks are cached for good.
        #expect(text.contains("Dots and Loops (450 plays)"))
        #expect(await harness.libreFM.count("user.getrecenttracks") == 3)
        let asked = (await harness.listenBrainz.calls.count, await harness.libreFM.methods.count)
        _ = try await services.preview.draft(chat: -9001, dueAt: BotHarness.now)
        #expect(await harness.listenBrainz.calls.count == asked.0)
        #expect(await harness.libreFM.methods.count == asked.1)
        await harness.stop()
    }

    @Test func aListenBrainzOutageMarksItsUsersUnavailableAndPostsTheOthers() async throws {
        let harness = try await SourcesHarness.start()
        let week = SourcesHarness.week
        await harness.base.lastFM.setAlbumChart(user: "alice", from: week.fromUnix, to: week.toUnix, albums: [("Radiohead", "OK Computer", 5)])
        await harness.listenBrainz.rateLimit(resetIn: 1, times: 100)
        let store = try BotStore(path: harness.base.databasePath)
        _ = try await store.addToRoster(["alice", "lb:bob"], chat: -9002, limit: 50)
        let services = harness.assembly().services(telegramTransport: harness.base.transport, token: Secret(harness.base.telegram.token), store: store)
        let text = try await services.preview.draft(chat: -9002, dueAt: BotHarness.now).text
        #expect(text.contains("OK Computer"))
        #expect(text.contains("lb:bob"))
        #expect(text.contains("<b>lb:bob</b>: unavailable this week (ListenBrainz did not answer)."))
        await harness.stop()
    }

    @Test func aListenBrainzBreakerOpensForItsUsersOnlyAndLastFMUsersAreServed() async throws {
        let harness = try await SourcesHarness.start()
        await harness.listenBrainz.rateLimit(resetIn: 1, times: 1000)
        let store = try BotStore(path: harness.base.databasePath)
        let session = harness.assembly(breakerClock: TestClock()).terminal(store: store)
        for _ in 1...3 {
            #expect(await harness.reply("tb lb:bob 1", session) == "ListenBrainz says we are asking too often. Try again in a minute.")
        }
        let asked = await harness.listenBrainz.calls.count
        #expect(await harness.reply("tb lb:bob 1", session) == "ListenBrainz is having trouble, try again in a minute.")
        #expect(await harness.listenBrainz.calls.count == asked)
        #expect(await harness.reply("tb alice 3", session).contains("In Rainbows"))
        await harness.stop()
    }

    @Test func aWeekOf2500ListensCostsThreePagesAndThenNothing() async throws {
        let harness = try await SourcesHarness.start()
        let week = SourcesHarness.week
        await harness.listenBrainz.addUser("heavy", listens:
            SourcesHarness.listens(2500, artist: "Aphex Twin", release: "Drukqs")
            + SourcesHarness.listens(700, artist: "Before", release: "Earlier Week", inWeekStarting: week.fromUnix - 604_800)
            + SourcesHarness.listens(50, artist: "After", release: "Later Week", inWeekStarting: week.toUnix))
        let store = try BotStore(path: harness.base.databasePath)
        let assembly = harness.assembly()
        let lastFM = assembly.lastFM(breaker: CircuitBreaker(), store: store)
        let engine = ThrowbackEngine(history: assembly.listening(lastFM: lastFM, store: store), now: { BotHarness.now })

        guard case .chart(let summary) = try await engine.throwback(user: "lb:heavy", yearsAgo: 1) else {
            Issue.record("no chart")
            return
        }
        #expect(summary.user == "lb:heavy")
        #expect(summary.range == week)
        #expect(summary.albums.map(\.name) == ["Drukqs"])
        #expect(summary.albums.first?.playCount == 2500)
        let calls = await harness.listenBrainz.calls
        // One small request for the span of listens, then ⌈2500 / 1000⌉ pages of at most 1000.
        #expect(calls.count == 4)
        #expect(calls.filter { $0.count == 1000 }.count == 3)
        #expect(calls.allSatisfy { $0.count <= 1000 })

        // Warm: the same engine, and a new chain over the same database (as after a restart).
        _ = try await engine.throwback(user: "lb:heavy", yearsAgo: 1)
        let restarted = ThrowbackEngine(history: assembly.listening(lastFM: lastFM, store: store), now: { BotHarness.now })
        _ = try await restarted.throwback(user: "LB:heavy", yearsAgo: 1)
        #expect(await harness.listenBrainz.calls.count == 4)
        await harness.stop()
    }

    @Test func twoColdRequestsForTheSameWeekCostOneChain() async throws {
        let harness = try await SourcesHarness.start()
        await harness.listenBrainz.addUser("bob", listens: SourcesHarness.listens(1500, artist: "Low", release: "Double Negative"))
        let store = try BotStore(path: harness.base.databasePath)
        let assembly = harness.assembly()
        let listening = assembly.listening(lastFM: assembly.lastFM(breaker: CircuitBreaker(), store: store), store: store)
        let engine = ThrowbackEngine(history: listening, now: { BotHarness.now })
        let gate = await harness.listenBrainz.hold()
        async let first = engine.throwback(user: "lb:bob", yearsAgo: 1)
        async let second = engine.throwback(user: "lb:bob", yearsAgo: 1)
        try await harness.listenBrainz.waitForCalls(count: 1)
        // Both callers wait on the one request in flight before it is let through.
        let cache = try #require(listening.listenBrainz as? CachedListeningHistory)
        while cache.callersWaiting < 2 { await Task.yield() }
        await gate.open()
        let answers = try await [first, second]
        #expect(answers[0] == answers[1])
        // One span request and two pages, not twice that.
        #expect(await harness.listenBrainz.calls.count == 3)
        await harness.stop()
    }

    @Test func a429IsWaitedOutAndAnUnknownUserIsNamedAsListenBrainzs() async throws {
        let harness = try await SourcesHarness.start()
        await harness.listenBrainz.addUser("bob", listens: SourcesHarness.listens(3, artist: "Low", release: "HEY WHAT"))
        await harness.listenBrainz.rateLimit(resetIn: 3)
        let store = try BotStore(path: harness.base.databasePath)
        let session = harness.assembly().terminal(store: store)
        #expect(await harness.reply("throwback lb:bob 1", session).contains("HEY WHAT"))
        #expect(await harness.reply("throwback lb:nobody", session) == "No ListenBrainz user is called “nobody”.")
        #expect(await harness.reply("link lb:nobody", session).hasPrefix("No ListenBrainz user is called “nobody”."))
        #expect(await harness.reply("throwback librefm:nobody", session) == "No Libre.fm user is called “nobody”.")
        await harness.stop()
    }

    @Test func qualifiedNamesInLinkTrackAndThrowbackAndBareNamesAsBefore() async throws {
        let harness = try await SourcesHarness.start()
        await harness.listenBrainz.addUser("Bob", listens: SourcesHarness.listens(3, artist: "Low", release: "HEY WHAT"))
        await harness.libreFM.addUser("Carol", created: SourcesHarness.weekStart - 86_400, scrobbles: [
            (at: SourcesHarness.weekStart + 5, artist: "Stereolab", album: "Emperor Tomato Ketchup"),
        ])
        let store = try BotStore(path: harness.base.databasePath)
        // A roster and a link from before sources existed.
        _ = try await store.addToRoster(["alice"], chat: SourcesHarness.admin, limit: 50)
        let session = harness.assembly().terminal(store: store)

        #expect(await harness.reply("track lb:bob", session).hasPrefix("Now tracking lb:Bob."))
        #expect(await harness.reply("track librefm:carol", session).hasPrefix("Now tracking librefm:Carol."))
        #expect(await harness.reply("track lastfm:ALICE", session) == "alice is already tracked.")
        #expect(await harness.reply("tracked", session) == "Tracked (3): alice, lb:Bob, librefm:Carol")
        #expect(await harness.reply("link lb:bob", session).hasPrefix("Linked you to ListenBrainz user lb:Bob."))
        #expect(await harness.reply("throwback me 1", session).contains("HEY WHAT"))
        #expect(await harness.reply("tb librefm:carol", session).contains("Emperor Tomato Ketchup"))
        #expect(await harness.reply("link lastfm:alice", session).hasPrefix("Linked you to Last.fm user alice."))
        #expect(try await store.linkedName(of: SourcesHarness.admin) == "alice")
        #expect(await harness.reply("untrack lb:bob", session) == "Stopped tracking lb:Bob.")
        #expect(await harness.reply("untrack lastfm:alice", session) == "Stopped tracking alice.")
        #expect(await harness.reply("import lb:bob", session).hasPrefix("import reads Last.fm friends only: ListenBrainz has no friends list to import (add lb:bob itself with “track lb:bob”)."))
        #expect(await harness.reply("throwback lb:a/b", session).contains("is not a username"))
        await harness.stop()
    }
}

extension WeeklyPostPreview.Draft {
    /// The post's messages' text (captions included), as Telegram would get it.
    var text: String {
        guard case .messages(let messages, _) = self else { return "" }
        return messages.map(\.text).joined(separator: "\n")
    }
}
