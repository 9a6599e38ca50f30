import Clocks
import Covers
import Foundation
import LastFM
import Logging
import Networking
import Synchronization
import Testing
import TestSupport
@testable import Throwback
import TestLogging
import WeeklyCharts

@Suite(.capturingLogs) struct CollageTests {
    private func temporaryFolder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("covers-\(UUID().uuidString)")
    }

    @Test func theDiskCacheEvictsTheLeastRecentlyUsedCoverBeyondItsCapacity() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = CoverDiskCache(directory: folder, capacityBytes: 250)
        let urls = (1...3).map { URL(string: "https://img.example/\($0).jpg")! }
        await cache.store(Data(repeating: 1, count: 100), for: urls[0])
        await cache.store(Data(repeating: 2, count: 100), for: urls[1])
        // Using the first makes the second the least recently used.
        #expect(await cache.data(for: urls[0]) == Data(repeating: 1, count: 100))
        await cache.store(Data(repeating: 3, count: 100), for: urls[2])

        #expect(await cache.data(for: urls[1]) == nil)
        #expect(await cache.data(for: urls[0]) != nil)
        #expect(await cache.data(for: urls[2]) != nil)
        #expect(await cache.storedBytes == 200)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(files.count == 2)

        // A new process finds what is on disk, and leaves files it did not write alone.
        try Data("notes".utf8).write(to: folder.appendingPathComponent("README"))
        let reopened = CoverDiskCache(directory: folder, capacityBytes: 250)
        #expect(await reopened.storedBytes == 200)
        #expect(await reopened.data(for: urls[2]) == Data(repeating: 3, count: 100))
        await reopened.store(Data(repeating: 4, count: 300), for: urls[1])
        #expect(await reopened.data(for: urls[1]) == nil)
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("README").path))
    }

    @Test func aJobOverItsTimeBudgetGivesNilWithoutWaitingForIt() async throws {
        let clock = TestClock()
        let gate = Gate()
        let result = Task { await withinBudget(.seconds(10), clock: clock) { await gate.wait(); return 1 } }
        #expect(await clock.waitForSleeper())
        await clock.advance(by: .seconds(9))
        await clock.advance(by: .seconds(1))
        #expect(await result.value == nil)
        await gate.open()
    }

    @Test func aJobWithinItsBudgetGivesItsResult() async throws {
        let clock = TestClock()
        #expect(await withinBudget(.seconds(10), clock: clock) { 7 } == 7)
    }

    /// A week whose albums have no art: Last.fm is asked once for its covers, and not again
    /// until the hosts' "unusable" verdicts would have expired too.
    @Test func aWeekWithoutCoversIsLookedUpOnceAnHourNotForEveryThrowback() async throws {
        let lastFM = AlbumsWithoutArt()
        let clock = TestClock()
        let maker = CollageMaker(
            lastFM: lastFM, downloader: CoverDownloader(transport: ScriptedTransport([]), cache: nil), renderer: FailingRenderer(),
            clock: clock
        )
        let photos = CollagePhotos(maker: maker, store: try BotStore.inMemory(), clock: clock, logger: Logger(label: "test"))
        let albums = (1...3).map { ChartAlbum(artist: "Artist \($0)", name: "Album \($0)", playCount: 10 - $0, rank: $0) }
        let summary = ChartSummary(user: "alice", range: WeeklyChartRange(fromUnix: 0, toUnix: 604_800), yearsAgo: 3, albums: albums)

        #expect(await photos.photo(for: summary) == nil)
        #expect(await photos.photo(for: summary) == nil)
        #expect(lastFM.lookups == 3)
        await clock.advance(by: CoverDownloader.unusableLifetime)
        #expect(await photos.photo(for: summary) == nil)
        #expect(lastFM.lookups == 6)
    }

    /// A cover that could not be fetched this time is no verdict: the next throwback tries again.
    @Test func aWeekWhoseCoversFailedIsTriedAgainAtOnce() async throws {
        let lastFM = AlbumsWithoutArt(failing: true)
        let maker = CollageMaker(
            lastFM: lastFM, downloader: CoverDownloader(transport: ScriptedTransport([]), cache: nil), renderer: FailingRenderer()
        )
        let photos = CollagePhotos(maker: maker, store: try BotStore.inMemory(), logger: Logger(label: "test"))
        let summary = ChartSummary(
            user: "alice", range: WeeklyChartRange(fromUnix: 0, toUnix: 604_800), yearsAgo: 3,
            albums: [ChartAlbum(artist: "Artist", name: "Album", playCount: 5, rank: 1)]
        )
        #expect(await photos.photo(for: summary) == nil)
        #expect(await photos.photo(for: summary) == nil)
        #expect(lastFM.lookups == 2)
    }

    @Test func theWeeklyCollageSumsPlaysAcrossUsersWhateverTheSpelling() {
        let range = WeeklyChartRange(fromUnix: 0, toUnix: 604_800)
        func entry(_ user: String, _ albums: [(String, String, Int)]) -> WeeklyEntry {
            let rows = albums.enumerated().map { ChartAlbum(artist: $1.0, name: $1.1, playCount: $1.2, rank: $0 + 1) }
            return WeeklyEntry(user: user, key: user, content: .chart(ChartSummary(user: user, range: range, yearsAgo: 1, albums: rows), anniversaries: []))
        }
        let entries = [
            entry("a", [("Low", "Trust", 5), ("Björk", "Post", 4)]),
            WeeklyEntry(user: "b", key: "b", content: .quiet),
            entry("c", [("BJÖRK", "post", 3), ("Slint", "Spiderland", 6), ("Low", "Trust", Int.max)]),
        ]
        let top = WeeklyPoster.combinedTopAlbums(of: entries, limit: 2)
        #expect(top.map(\.name) == ["Trust", "Post"])
        #expect(top.map(\.playCount) == [Int.max, 7])
        #expect(top.map(\.rank) == [1, 2])
    }
}

@Suite(.capturingLogs) struct CoversCommandTests {
    @Test func coversTurnsCollagesOffAndOnForThisChatOrANamedOne() async throws {
        let store = try BotStore.inMemory()
        let command = CoversCommand(guards: [])
        let here = CommandInvocation(chatID: -10, isPrivateChat: false, userID: 1)
        func run(_ arguments: [String]) async -> BotReply {
            var invocation = here
            invocation.arguments = arguments
            switch command.parse(invocation) {
            case .success(let parsed): return await command.execute(parsed).committed(to: store)
            case .failure(let error): return .text(command.spec.usageMessage(error))
            }
        }
        #expect(await run([]) == .text("Throwbacks here come with a collage of the album covers. Turn it off with: covers off"))
        #expect(await run(["OFF"]) == .text("Throwbacks here are text only. Turn the cover collage on with: covers on"))
        #expect(try await store.settings(for: -10).covers == false)
        #expect(await run(["off", "-20"]) == .text("Throwbacks here are text only. Turn the cover collage on with: covers on"))
        #expect(try await store.settings(for: -20).covers == false)
        #expect(await run(["on"]) == .text("Throwbacks here come with a collage of the album covers. Turn it off with: covers off"))
        #expect(await run(["-20"]) == .text("Throwbacks here are text only. Turn the cover collage on with: covers on"))
        #expect(await run(["maybe"]) == .text("Say on or off. Usage: covers [on|off] [chat-id]"))
        #expect(await run(["on", "off"]) == .text("Usage: covers [on|off] [chat-id]"))
    }
}

/// Last.fm knows every album and has art for none; or, `failing`, cannot be reached.
private final class AlbumsWithoutArt: LastFMClient {
    private let count = Mutex(0)
    private let failing: Bool

    init(failing: Bool = false) {
        self.failing = failing
    }

    var lookups: Int { count.withLock { $0 } }

    func send<Response>(_ call: LastFMCall<Response>) async throws -> Response {
        count.withLock { $0 += 1 }
        guard !failing else { throw ListeningError("Last.fm", .transport("unreachable")) }
        guard call.method == "album.getinfo", let info = AlbumInfo(artist: "", name: "", coverURL: nil) as? Response else {
            throw ListeningError("Last.fm", .transport("only album.getinfo in this test"))
        }
        return info
    }
}

/// A renderer that must not be reached.
private struct FailingRenderer: CollageRendering {
    func render(_ tiles: [CollageTile]) async throws -> Data {
        Issue.record("rendered a collage without covers")
        throw CoverError.renderFailed
    }
}
