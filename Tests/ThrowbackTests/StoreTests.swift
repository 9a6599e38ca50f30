import Foundation
import Telegram
import Testing
import Throwback

@Suite struct StoreTests {
    @Test func rostersKeepLastFMSpellingAndIgnoreCase() async throws {
        let store = try BotStore.inMemory()
        #expect(try await store.addToRoster(["RJ", "eartle", "rj"], chat: -1, limit: 50) == ["RJ", "eartle"])
        #expect(try await store.roster(of: -1).map(\.lastFMName) == ["eartle", "RJ"])
        #expect(try await store.removeFromRoster("EARTLE", chat: -1)?.lastFMName == "eartle")
        #expect(try await store.addToRoster(["a1", "b2", "c3"], chat: -1, limit: 2) == ["a1"])
    }

    @Test func aMigratedChatTakesItsRowsAlong() async throws {
        let store = try BotStore.inMemory()
        _ = try await store.addToRoster(["RJ"], chat: -5, limit: 50)
        try await store.updateSettings(for: -5) { $0.minimumPlayCount = 4 }
        try await store.migrateChat(from: -5, to: -1_005)
        #expect(try await store.roster(of: -5).isEmpty)
        #expect(try await store.roster(of: -1_005).map(\.lastFMName) == ["RJ"])
        #expect(try await store.settings(for: -1_005).minimumPlayCount == 4)
    }

    @Test func aForbiddenChatIsMarkedInactiveWithItsWeeklyPostOff() async throws {
        let store = try BotStore.inMemory()
        try await store.markInactive(-7)
        let settings = try await store.settings(for: -7)
        #expect(!settings.active)
        #expect(!settings.weeklyEnabled)
    }

    @Test func theJournalRemembersWhatWasHandled() async throws {
        let store = try BotStore.inMemory()
        let journal = UpdateJournal(store: store)
        let batch = [Update(updateID: 5), Update(updateID: 6)]
        #expect(try await journal.offset() == nil)
        try await journal.record(batch)
        #expect(try await journal.offset() == 7)
        #expect(try await journal.unhandled().map(\.updateID) == [5, 6])
        try await journal.markProcessed(5)
        #expect(try await journal.isProcessed(5))
        #expect(try await journal.unhandled().map(\.updateID) == [6])
        // Telegram delivers the same batch again: the handled update stays handled.
        try await journal.record(batch)
        #expect(try await journal.unhandled().map(\.updateID) == [6])
        // An answer that never left puts its update back.
        try journal.reopen(batch[0])
        #expect(try await !journal.isProcessed(5))
        #expect(try await journal.unhandled().map(\.updateID) == [5, 6])
    }

    @Test func theDatabaseSurvivesReopening() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        try await BotStore(path: path).link(telegramUser: 3, to: "RJ")
        #expect(try await BotStore(path: path).linkedName(of: 3) == "RJ")
    }
}
