import Foundation

/// Which process works on each chat: a row per chat in a lane table, its holder and when its
/// lease runs out. Two processes on one database (the bot and `post-weekly`, or replicas)
/// would otherwise each send the same chat's messages (`outboxLane`), or handle its updates
/// (`journalLane`): out of order, and into Telegram's flood limits. A lease that runs out
/// frees the chat of a process that died; one that holds it renews it while it works.
enum LaneTable: String, Sendable {
    /// Who sends a chat's messages (`OutboxDeliverer`).
    case outbox = "outboxLane"
    /// Who handles a chat's updates, among replicas (`JournalFeed`).
    case journal = "journalLane"

    // A row goes in, or takes over a row whose holder is this owner or whose lease ran out;
    // a row held by another is left as it is, and counts no change.
    fileprivate var take: String { self == .outbox ? Self.takeOutbox : Self.takeJournal }
    fileprivate var release: String { self == .outbox ? Self.releaseOutbox : Self.releaseJournal }

    private static let takeOutbox = takeStatement(.outbox)
    private static let takeJournal = takeStatement(.journal)
    private static let releaseOutbox = "DELETE FROM outboxLane WHERE owner = ? AND chatID = ?"
    private static let releaseJournal = "DELETE FROM journalLane WHERE owner = ? AND chatID = ?"

    private static func takeStatement(_ table: LaneTable) -> String {
        """
        INSERT INTO \(table.rawValue) (chatID, owner, expiresAt) VALUES (?, ?, ?)
        ON CONFLICT (chatID) DO UPDATE SET owner = excluded.owner, expiresAt = excluded.expiresAt
        WHERE \(table.rawValue).owner = excluded.owner OR \(table.rawValue).expiresAt <= ?
        """
    }
}

extension StoreTransaction {
    /// Takes the lanes of `chats` in `table` for `owner` until `until`, or renews them: all but
    /// those another process holds whose leases have not run out. Returns the chats `owner` holds now.
    func takeLanes(_ chats: Set<Int64>, in table: LaneTable, owner: String, until: Date, at now: Date) throws -> Set<Int64> {
        let (owner, until, now) = (StoreValue.text(owner), StoreValue.date(until), StoreValue.date(now))
        // In order, so that two processes taking lanes at once lock their rows in one order. A
        // statement per chat: SQLite runs a list of rows or a `RETURNING` through a table it
        // makes for the run, which costs more than the statements.
        let take = table.take
        return try Set(chats.sorted().filter { chat in try session.execute(take, [.integer(chat), owner, until, now]) > 0 })
    }

    /// Moves the end of `owner`'s lease of `chat` to `until`; false if it is no longer theirs.
    func renewLane(_ chat: Int64, in table: LaneTable, owner: String, until: Date) throws -> Bool {
        try session.execute(
            "UPDATE \(table.rawValue) SET expiresAt = ? WHERE chatID = ? AND owner = ?", [.date(until), .integer(chat), .text(owner)]
        ) > 0
    }

    /// Gives up `owner`'s lanes of `chats`: another process may work on them at once.
    func releaseLanes(_ chats: some Collection<Int64>, in table: LaneTable, owner: String) throws {
        let release = table.release
        for chat in chats.sorted() {
            _ = try session.execute(release, [.text(owner), .integer(chat)])
        }
    }
}
