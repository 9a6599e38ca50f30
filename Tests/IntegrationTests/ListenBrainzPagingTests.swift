import Foundation
import LastFM
import ListenBrainz
import Networking
import Testing
import TestSupport
import Throwback
import TestLogging

/// ListenBrainz to the last listen: pages whose edges fall inside a second, seconds holding
/// more listens than a page, and names stored in ListenBrainz's spelling.
@Suite(.capturingLogs, .timeLimit(.minutes(2))) struct ListenBrainzPagingTests {
    static let week = SourcesHarness.week

    static func listens(_ count: Int, at second: Int, _ release: String) -> [FakeListenBrainz.FakeListen] {
        (0..<count).map { _ in FakeListenBrainz.FakeListen(at: second, artist: "Importer", release: release) }
    }

    /// The weekly preview's text for one ListenBrainz user.
    func preview(_ name: String, _ harness: SourcesHarness, chat: Int64) async throws -> String {
        let store = try BotStore(path: harness.base.databasePath)
        _ = try await store.addToRoster([name], chat: chat, limit: 50)
        let services = harness.assembly().services(telegramTransport: harness.base.transport, token: Secret(harness.base.telegram.token), store: store)
        return try await services.preview.draft(chat: chat, dueAt: BotHarness.now).text
    }

    @Test func aWeekOf1500ListensThatShareOneSecondCountsAll1500() async throws {
        let harness = try await SourcesHarness.start()
        let start = Self.week.fromUnix
        await harness.listenBrainz.addUser("bulk", listens:
            Self.listens(1500, at: start + 1000, "One Second")
            + Self.listens(700, at: start + 500, "Earlier Second")
            + Self.listens(2, at: start, "The Week's First Second")
            + Self.listens(300, at: start - 1, "Last Week")
            + Self.listens(10, at: Self.week.toUnix, "Next Week"))
        let text = try await preview("lb:bulk", harness, chat: -9101)
        #expect(text.contains("One Second (1500 plays)"), "\(text)")
        #expect(text.contains("Earlier Second (700 plays)"), "\(text)")
        #expect(text.contains("The Week's First Second (2 plays)"), "\(text)")
        #expect(!text.contains("Last Week") && !text.contains("Next Week"), "\(text)")
        // The second of 1500 is read from both ends, once each; then the seconds before it.
        let calls = await harness.listenBrainz.calls.dropFirst()
        #expect(calls.map(\.maxTimestamp) == [Self.week.toUnix, start + 1001, start + 1000])
        #expect(calls.map(\.minTimestamp) == [nil, start + 999, nil])
        #expect(await harness.listenBrainz.badRequests == 0)
        await harness.stop()
    }

    @Test func pagesEndingInsideASecondSkipNoListenAndCountNoneTwice() async throws {
        let harness = try await SourcesHarness.start()
        let start = Self.week.fromUnix
        await harness.listenBrainz.addUser("imports", listens:
            Self.listens(600, at: start + 3000, "Third") + Self.listens(600, at: start + 2000, "Second")
            + Self.listens(600, at: start + 1000, "First") + Self.listens(1, at: start - 604_800, "Long Ago"))
        let text = try await preview("lb:imports", harness, chat: -9102)
        // Each page ends 400 listens into a second of 600.
        for album in ["Third", "Second", "First"] { #expect(text.contains("\(album) (600 plays)"), "\(text)") }
        #expect(await harness.listenBrainz.calls.dropFirst().map(\.maxTimestamp) == [Self.week.toUnix, start + 2001, start + 1001])
        await harness.stop()
    }

    @Test func namesAreStoredInListenBrainzsSpellingNotAsWritten() async throws {
        let harness = try await SourcesHarness.start()
        await harness.listenBrainz.addUser("LbCarol", listens: SourcesHarness.listens(3, artist: "Low", release: "HEY WHAT"))
        await harness.listenBrainz.addUser("QuietOne", listens: [])
        let store = try BotStore(path: harness.base.databasePath)
        let session = harness.assembly().terminal(store: store)
        #expect(await harness.reply("track lb:lbcarol", session).hasPrefix("Now tracking lb:LbCarol."))
        // Without a listen, nothing tells the stored spelling: the name stays as written.
        #expect(await harness.reply("track lb:quietone", session).hasPrefix("Now tracking lb:quietone."))
        #expect(await harness.reply("tracked", session) == "Tracked (2): lb:LbCarol, lb:quietone")
        #expect(await harness.reply("link lb:LBCAROL", session).hasPrefix("Linked you to ListenBrainz user lb:LbCarol."))
        await harness.stop()
    }
}
