import Clocks
import Foundation
import LastFM
import Testing
import TestSupport
@testable import Throwback
import TestLogging

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
        let command = CoversCommand(guards: [], store: store)
        let here = CommandInvocation(chatID: -10, isPrivateChat: false, userID: 1)
        func run(_ arguments: [String]) async -> BotReply {
            var invocation = here
            invocation.arguments = arguments
            switch command.parse(invocation) {
            case .success(let parsed): return await command.execute(parsed)
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
