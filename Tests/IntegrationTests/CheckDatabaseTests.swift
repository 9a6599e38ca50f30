import Foundation
import GRDB
import Testing
import TestLogging
import Throwback

/// `vinylogue-bot check` tells an operator what the database holds, without the network
/// and without changing it.
@Suite(.capturingLogs) struct CheckDatabaseTests {
    @Test func checkPrintsEachTablesRowsAndTheDatabasesSize() async throws {
        let directory = try Executable.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("bot.sqlite").path
        let store = try BotStore(path: path)
        _ = try await store.addToRoster(["alice", "bob"], chat: -1, limit: 50)
        await SQLiteLastFMCache(store: store).store(Data(count: 300_000), forKey: "user.getweeklyalbumchart|user=alice", expiresAt: nil)

        let check = try await Executable.run(["check"], environment: ["DATABASE_PATH": path])

        // No token and no key: those lines say so, and the database is counted all the same.
        #expect(check.status != 0)
        let lines = check.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("Database: ") && $0.hasSuffix(" MB on disk, with its log.") }, "\(check.stdout)")
        #expect(lines.contains("  rosterEntry: 2 rows"), "\(check.stdout)")
        #expect(lines.contains("  lastfmCache: 1 row, 0.3 MB of listening data"), "\(check.stdout)")
        #expect(lines.contains("  outbox: 0 rows"), "\(check.stdout)")
        #expect(lines.contains("Weekly posts: none due in the next 24 hours."), "\(check.stdout)")
    }

    /// A database some other version wrote is counted as it is, never migrated: the bot that
    /// owns it may be older than this binary.
    @Test func checkCountsADatabaseWithoutMigratingIt() async throws {
        let directory = try Executable.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("old.sqlite").path
        let old = try DatabaseQueue(path: path)
        try await old.write { db in
            try db.execute(sql: "CREATE TABLE chat (id INTEGER PRIMARY KEY); INSERT INTO chat (id) VALUES (-1)")
        }

        let check = try await Executable.run(["check"], environment: ["DATABASE_PATH": path])

        #expect(check.stdout.split(separator: "\n").contains("  chat: 1 row"), "\(check.stdout)")
        let tables = try await old.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") }
        #expect(tables == ["chat"])
        try old.close()
    }
}
