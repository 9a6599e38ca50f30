import Foundation
import GRDB
import Logging
import Networking
import Synchronization
import Telegram
import Testing
import TestSupport
import Throwback
import TestLogging

/// The thread that drives every transfer never waits for the disk: the bot's tasks run on it,
/// and their writes wait for SQLite's write lock, held meanwhile by another process's `backup`
/// or `post-weekly`, on the store's own thread. Polls and sends go on in the meantime.
@Suite(.capturingLogs) struct NetworkThreadTests {
    @Test func aWriteWaitingForTheLockHoldsUpNoPollOrSend() async throws {
        let directory = try Executable.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("vinylogue.sqlite").path
        let store = try BotStore(path: path)
        let telegram = FakeTelegram()
        let transport = CurlTransport()
        let client = HTTPTelegramClient(
            transport: transport, baseURL: try await telegram.start(), token: Secret(telegram.token), logger: Logger(label: "test")
        )

        // Another process takes the write lock and keeps it.
        var holding = Configuration()
        holding.allowsUnsafeTransactions = true
        let other = try DatabaseQueue(path: path, configuration: holding)
        try other.inDatabase { db in try db.execute(sql: "BEGIN IMMEDIATE") }

        // A write from the transport's thread, as the poller's and the outbox's are.
        let finished = Atomic<Bool>(false)
        let (started, startedNow) = AsyncStream.makeStream(of: Void.self)
        let write = Task(executorPreference: transport.executor) {
            startedNow.yield()
            defer { finished.store(true, ordering: .sequentiallyConsistent) }
            try await store.write { _ in }
        }
        for await _ in started { break }

        // Meanwhile a poll and a message go out and their answers are read, while the write
        // still waits.
        let updates = try await client.getUpdates(offset: nil, timeout: 0, allowedUpdates: [])
        #expect(updates.isEmpty)
        let sent = try await client.send(.sendMessage(chatID: 42, html: "still here"))
        #expect(sent.messageID > 0)
        #expect(await telegram.calls("getUpdates").count == 1)
        #expect(await telegram.calls("sendMessage").count == 1)
        let writeWasDone = finished.load(ordering: .sequentiallyConsistent)
        #expect(!writeWasDone, "the poll was answered only once the write gave up")

        // Once the lock is free, the write goes through.
        try other.inDatabase { db in try db.execute(sql: "COMMIT") }
        try await write.value
        await telegram.stop()
    }

    /// A commit that must reach the disk waits for its fsync, which a busy disk may make last
    /// seconds: the store's thread does it, while the transport's thread goes on. A write that
    /// needs no sync is committed where it was asked for, with no hand-off.
    @Test func aSyncedCommitIsSyncedOffTheTransportsThread() async throws {
        let directory = try Executable.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try BotStore(path: directory.appendingPathComponent("vinylogue.sqlite").path)
        let transport = CurlTransport()
        let threads = try await Task(executorPreference: transport.executor) {
            let caller = pthread_self()
            let synced = try await store.write { _ in pthread_self() }
            let unsynced = try await store.write(synced: false) { _ in pthread_self() }
            return (caller: caller, synced: synced, unsynced: unsynced)
        }.value
        #expect(pthread_equal(threads.synced, threads.caller) == 0, "the synced commit ran on the transport's thread")
        #expect(pthread_equal(threads.unsynced, threads.caller) != 0)
    }
}
