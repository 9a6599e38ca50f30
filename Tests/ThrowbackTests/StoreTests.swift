import Foundation
import Telegram
import Testing
import TestLogging
@testable import Throwback

@Suite(.capturingLogs) struct StoreTests {
    @Test(arguments: TestEngine.allCases) func rostersKeepLastFMSpellingAndIgnoreCase(engine: TestEngine) async throws {
        let store = try await engine.makeStore()
        #expect(try await store.addToRoster(["RJ", "eartle", "rj"], chat: -1, limit: 50) == ["RJ", "eartle"])
        #expect(try await store.roster(of: -1).map(\.lastFMName) == ["RJ", "eartle"])
        #expect(try await store.write { try $0.removeFromRoster("EARTLE", chat: -1) }?.lastFMName == "eartle")
        #expect(try await store.addToRoster(["a1", "b2", "c3"], chat: -1, limit: 2) == ["a1"])
    }

    /// Replies still waiting for the group go to the supergroup with its roster and settings,
    /// in the same transaction, so that a restart does not send them to the old id; one
    /// already on its way is left as it is.
    @Test(arguments: TestEngine.allCases) func aMigratedChatTakesItsRowsAlong(engine: TestEngine) async throws {
        let store = try await engine.makeStore()
        _ = try await store.addToRoster(["RJ"], chat: -5, limit: 50)
        try await store.updateSettings(for: -5) { $0.minimumPlayCount = 4 }
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        let reply = { (text: String) in
            OutboxMessage(chatID: -5, kind: .reply, request: TelegramRequest<SentMessage>.sendMessage(chatID: -5, html: text),
                          expiresAt: now.addingTimeInterval(3600))
        }
        let replies = [reply("on its way"), reply("first"), reply("second")]
        let enqueued = try await store.write { try $0.enqueue(replies, at: now) }
        _ = try await store.write { try $0.claimForSending([enqueued[0].id], owner: "me", at: now) }
        try await store.migrateChat(from: -5, to: -1_005)
        #expect(try await store.roster(of: -5).isEmpty)
        #expect(try await store.roster(of: -1_005).map(\.lastFMName) == ["RJ"])
        #expect(try await store.settings(for: -1_005).minimumPlayCount == 4)
        let waiting = try await store.pendingMessages(limit: 10, owner: "new", at: now) { _ in false }.messages
        #expect(waiting.map(\.chatID) == [-1_005, -1_005])
        #expect(waiting.map(\.request.chatID) == [-1_005, -1_005])
        #expect(waiting.map { $0.request.parameters["text"] } == [.string("first"), .string("second")])
    }

    /// A chat the bot cannot post to gets no weekly post; once the bot is back, the post is on
    /// again if it was on, without catching up on the weeks it was away.
    @Test(arguments: TestEngine.allCases) func aForbiddenChatIsMarkedInactiveWithItsWeeklyPostOff(engine: TestEngine) async throws {
        let store = try await engine.makeStore()
        try await store.updateSettings(for: -7) { $0.weeklyPost = true }
        try await store.write { try $0.markInactive(-7) }
        let settings = try await store.settings(for: -7)
        #expect(!settings.active)
        #expect(!settings.weeklyPostIsOn(defaultChat: nil))
        let back = Date(timeIntervalSince1970: 1_795_000_000)
        #expect(try await store.write { try $0.markActive(-7, at: back) })
        let active = try await store.settings(for: -7)
        #expect(active.weeklyPostIsOn(defaultChat: nil))
        #expect(active.weeklySince == 1_795_000_000)
        #expect(try await store.write { try $0.markActive(-7, at: back) } == false)
    }

    /// A batch's chats are read at once: their commands then find the settings in memory
    /// (a row changed behind the store's back is not read again within the minute), and a
    /// change made through the store after the read still wins.
    @Test(arguments: TestEngine.allCases) func settingsPreloadedForABatchServeItsCommandsAndYieldToLaterChanges(engine: TestEngine) async throws {
        let store = try await engine.makeStore()
        // Written by SQL alone, as another process would: the store's cache knows nothing of it.
        try await store.write { transaction in
            for settings in [ChatSettings(id: -1, minimumPlayCount: 3), ChatSettings(id: -2, minimumPlayCount: 4)] {
                _ = try transaction.session.execute(ChatSettings.save, settings.arguments)
            }
        }
        try await store.preloadSettings(for: [-1, -2, -3])
        _ = try await store.write { try $0.session.execute("UPDATE chat SET minimumPlayCount = 9", []) }
        #expect(try await store.settings(for: -1).minimumPlayCount == 3)
        #expect(try await store.settings(for: -2).minimumPlayCount == 4)
        #expect(try await store.settings(for: -3) == ChatSettings(id: -3))

        try await store.updateSettings(for: -1) { $0.minimumPlayCount = 5 }
        try await store.preloadSettings(for: [-1])
        #expect(try await store.settings(for: -1).minimumPlayCount == 5)
        // A read that began before a change and ends after it must not undo it.
        let cache = SettingsCache()
        cache[-1] = ChatSettings(id: -1, minimumPlayCount: 5)
        cache.keep(ChatSettings(id: -1, minimumPlayCount: 3))
        cache.keep(ChatSettings(id: -2, minimumPlayCount: 3))
        #expect(cache[-1]?.minimumPlayCount == 5)
        #expect(cache[-2]?.minimumPlayCount == 3)
    }

    /// A command in a group, as Telegram sends it.
    static func message(_ updateID: Int64, chat: Int64 = -1, id: Int64) -> Update {
        Update(updateID: updateID, message: Message(messageID: id, chat: Chat(id: chat, type: "group"), text: "/help"))
    }

    @Test(arguments: TestEngine.allCases) func theJournalRemembersWhatWasHandled(engine: TestEngine) async throws {
        let store = try await engine.makeStore()
        let journal = UpdateJournal(store: store)
        let batch = [Self.message(5, id: 50), Self.message(6, id: 60)]
        #expect(try await journal.offset() == nil)
        #expect(try await journal.record(batch.map(ReceivedUpdate.init), nextOffset: 7).map(\.updateID) == [5, 6])
        #expect(try await journal.offset() == 7)
        #expect(try await journal.unhandled().map(\.updateID) == [5, 6])
        try await store.write { try $0.markHandled(batch[0], at: Date()) }
        #expect(try await journal.unhandled().map(\.updateID) == [6])
        // Telegram delivers the same batch again: nothing is new.
        #expect(try await journal.record(batch.map(ReceivedUpdate.init), nextOffset: 7).isEmpty)
        #expect(try await journal.unhandled().map(\.updateID) == [6])
        // Handling that fails part-way commits nothing: the update stays in the inbox.
        struct Failure: Error {}
        await #expect(throws: Failure.self) {
            try await store.write { transaction in
                try transaction.markHandled(batch[1], at: Date())
                throw Failure()
            }
        }
        #expect(try await journal.unhandled().map(\.updateID) == [6])
    }

    @Test(arguments: TestEngine.allCases) func renumberedUpdatesAreNewAndTheOffsetFollowsThemDown(engine: TestEngine) async throws {
        let store = try await engine.makeStore()
        let journal = UpdateJournal(store: store)
        let old = [Self.message(900, id: 1), Self.message(901, id: 2)]
        _ = try await journal.record(old.map(ReceivedUpdate.init), nextOffset: 902)
        for update in old { try await store.write { try $0.markHandled(update, at: Date()) } }
        // A week later Telegram starts again at a lower id, reusing 900.
        let renumbered = [Self.message(899, id: 3), Self.message(900, id: 4)]
        #expect(try await journal.record(renumbered.map(ReceivedUpdate.init), nextOffset: 901).map(\.updateID) == [899, 900])
        #expect(try await journal.offset() == 901)
        // A redelivery of an update handled before is recognised by what it is.
        #expect(try await journal.record([ReceivedUpdate(Self.message(17, id: 2))], nextOffset: 18).isEmpty)
    }

    /// Writes asked for at once share a commit, but a write that fails undoes only itself.
    @Test(arguments: TestEngine.allCases) func aFailingWriteInASharedCommitUndoesOnlyItself(engine: TestEngine) async throws {
        let store = try await engine.makeStore()
        struct Failure: Error {}
        await withTaskGroup(of: Void.self) { group in
            for chat in 1...20 {
                group.addTask {
                    _ = try? await store.write { transaction in
                        _ = try transaction.addToRoster(["user\(chat)"], chat: -Int64(chat), limit: 50)
                        if chat.isMultiple(of: 5) { throw Failure() }
                    }
                }
            }
        }
        for chat in 1...20 {
            #expect(try await store.roster(of: -Int64(chat)).count == (chat.isMultiple(of: 5) ? 0 : 1), "\(chat)")
        }
    }

    /// A weekly post's claim is one process's while its lease lasts: another is refused until
    /// it runs out, then may take the post over; a completed post is claimed again only forced.
    @Test(arguments: TestEngine.allCases) func aWeeklyClaimIsExclusiveWhileItsLeaseLasts(engine: TestEngine) async throws {
        let store = try await engine.makeStore()
        let start = Date(timeIntervalSince1970: 1_795_000_000)
        func claim(_ owner: String, at seconds: TimeInterval, force: Bool = false) async throws -> WeeklyClaim {
            try await store.write { transaction in
                try transaction.claimWeeklyPost(
                    chat: -1, week: 7, dueAt: start, force: force, owner: owner, lease: .seconds(120), now: start.addingTimeInterval(seconds)
                )
            }
        }
        guard case .claimed(let first) = try await claim("a", at: 0) else { Issue.record("not claimed"); return }
        #expect(try await claim("b", at: 60) == .heldElsewhere(until: start.addingTimeInterval(120)))
        // "a" stopped without a word: once its lease runs out, "b" finishes the post.
        guard case .claimed(let taken) = try await claim("b", at: 121) else { Issue.record("not taken over"); return }
        #expect(taken.generation == first.generation)
        #expect(try await store.write { try $0.completeWeeklyPost(first, owner: "a", at: start) } == false)
        #expect(try await store.write { try $0.completeWeeklyPost(taken, owner: "b", at: start) })
        #expect(try await claim("a", at: 200) == .alreadyPosted)
        guard case .claimed(let forced) = try await claim("a", at: 200, force: true) else { Issue.record("not forced"); return }
        #expect(forced.generation == 2)
    }

    /// A chat's outbox lane is one process's while its lease lasts: another neither takes it nor
    /// sees its messages in a scan until the lease runs out or is given up.
    @Test(arguments: TestEngine.allCases) func aChatsLaneIsOneProcessesWhileItsLeaseLasts(engine: TestEngine) async throws {
        let store = try await engine.makeStore()
        let start = Date(timeIntervalSince1970: 1_795_000_000)
        _ = try await store.write { transaction in
            try transaction.enqueue([OutboxMessage(
                chatID: -1, kind: .reply, request: TelegramRequest<SentMessage>.sendMessage(chatID: -1, html: "hi"), expiresAt: start.addingTimeInterval(3600)
            )], at: start)
        }
        func take(_ owner: String, at seconds: TimeInterval) async throws -> Bool {
            try await store.write { try $0.takeLanes([-1], in: .outbox, owner: owner, until: start.addingTimeInterval(seconds + 30), at: start.addingTimeInterval(seconds)) } == [-1]
        }
        func scan(_ owner: String, at seconds: TimeInterval) async throws -> (count: Int, heldUntil: Date?) {
            let (messages, heldUntil) = try await store.pendingMessages(limit: 10, owner: owner, at: start.addingTimeInterval(seconds)) { _ in false }
            return (messages.count, heldUntil)
        }
        #expect(try await take("a", at: 0))
        #expect(try await take("b", at: 10) == false)
        #expect(try await scan("b", at: 10) == (0, start.addingTimeInterval(30)))
        #expect(try await scan("a", at: 10) == (1, nil))
        // "a" renews while it sends; it stops without a word, and the lease runs out.
        #expect(try await take("a", at: 20))
        #expect(try await take("b", at: 49) == false)
        #expect(try await scan("b", at: 50) == (1, nil))
        #expect(try await take("b", at: 50))
        #expect(try await store.write { try $0.renewLane(-1, in: .outbox, owner: "a", until: start.addingTimeInterval(100)) } == false)
        // Given up, it is free at once.
        try await store.write { try $0.releaseLanes([-1], in: .outbox, owner: "b") }
        #expect(try await take("a", at: 51))
    }

    /// A flood's chats, their lanes taken and given up and their messages marked as sending a
    /// batch of rows per statement: each chat another process holds stays that process's, and
    /// each message another process took stays its.
    @Test(arguments: TestEngine.allCases) func lanesAndClaimsTakenTogetherLeaveWhatAnotherProcessHolds(engine: TestEngine) async throws {
        let store = try await engine.makeStore()
        let start = Date(timeIntervalSince1970: 1_795_000_000)
        func take(_ chats: Set<Int64>, _ owner: String, at seconds: TimeInterval) async throws -> Set<Int64> {
            try await store.write { try $0.takeLanes(chats, in: .outbox, owner: owner, until: start.addingTimeInterval(seconds + 30), at: start.addingTimeInterval(seconds)) }
        }
        // Enough chats for batches of every size; "b" holds every third.
        let chats = Set((1...23).map { Int64($0) })
        let heldByB = chats.filter { $0 % 3 == 0 }
        #expect(try await take(heldByB, "b", at: 0) == heldByB)
        #expect(try await take(chats, "a", at: 10) == chats.subtracting(heldByB))
        // "a" gives up every lane it asks about: "b"'s stay "b"'s until their leases run out.
        try await store.write { try $0.releaseLanes(chats, in: .outbox, owner: "a") }
        #expect(try await take(chats, "c", at: 20) == chats.subtracting(heldByB))
        #expect(try await take(chats, "c", at: 30) == chats)

        let messages = chats.sorted().map { chat in
            OutboxMessage(chatID: chat, kind: .reply, request: TelegramRequest<SentMessage>.sendMessage(chatID: chat, html: "hi"),
                          expiresAt: start.addingTimeInterval(3600))
        }
        let ids = try await store.write { try $0.enqueue(messages, at: start) }.map(\.id)
        let takenByB = Set(ids.enumerated().filter { $0.offset % 3 == 0 }.map(\.element))
        #expect(try await store.write { try $0.claimForSending(takenByB, owner: "b", at: start) } == takenByB)
        #expect(try await store.write { try $0.claimForSending(ids, owner: "c", at: start) } == Set(ids).subtracting(takenByB))
        let owners: [String?] = try await store.read { session in try session.column("SELECT owner FROM outbox ORDER BY id") }
        #expect(owners == ids.map { takenByB.contains($0) ? "b" : "c" })
    }

}
