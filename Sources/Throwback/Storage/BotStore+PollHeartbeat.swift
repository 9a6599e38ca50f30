import Foundation

extension BotStore {
    /// Stamps when Telegram last answered a poll, for `healthcheck`, which runs in a process
    /// of its own. Not synced: a stamp lost to a power cut only makes the bot look idle for a
    /// moment.
    public func recordPoll(at date: Date) async throws {
        _ = try await write(synced: false) { transaction in
            try transaction.session.execute(
                "INSERT INTO pollHeartbeat (id, polledAt) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET polledAt = excluded.polledAt", [.date(date)]
            )
        }
    }

    /// When Telegram last answered a poll; nil if it never did, or if the running bot is of
    /// a version that kept no stamp.
    public func lastPoll() async throws -> Date? {
        try await read { session in
            guard try session.tableExists("pollHeartbeat") else { return nil }
            return try session.value("SELECT polledAt FROM pollHeartbeat WHERE id = 1")
        }
    }
}
