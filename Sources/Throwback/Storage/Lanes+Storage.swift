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
    // only the rows that went in or changed come back.
    fileprivate var take: [Int: String] { self == .outbox ? Self.takeOutbox : Self.takeJournal }
    fileprivate var release: [Int: String] { self == .outbox ? Self.releaseOutbox : Self.releaseJournal }

    private static let takeOutbox = takeStatements(.outbox)
    private static let takeJournal = takeStatements(.journal)
    private static let releaseOutbox = releaseStatements(.outbox)
    private static let releaseJournal = releaseStatements(.journal)

    private static func takeStatements(_ table: LaneTable) -> [Int: String] {
        StoreBatches.statements { count in """
            INSERT INTO \(table.rawValue) (chatID, owner, expiresAt) VALUES \(StoreBatches.list(count, of: "(?, ?, ?)"))
            ON CONFLICT (chatID) DO UPDATE SET owner = excluded.owner, expiresAt = excluded.expiresAt
            WHERE \(table.rawValue).owner = excluded.owner OR \(table.rawValue).expiresAt <= ?
            RETURNING chatID
            """
        }
    }

    private static func releaseStatements(_ table: LaneTable) -> [Int: String] {
        StoreBatches.statements { count in "DELETE FROM \(table.rawValue) WHERE owner = ? AND chatID IN (\(StoreBatches.list(count)))" }
    }
}

extension StoreTransaction {
    /// Takes the lanes of `chats` in `table` for `owner` until `until`, or renews them: all but
    /// those another process holds whose leases have not run out. Returns the chats `owner` holds now.
    func takeLanes(_ chats: Set<Int64>, in table: LaneTable, owner: String, until: Date, at now: Date) throws -> Set<Int64> {
        let (owner, until, now) = (StoreValue.text(owner), StoreValue.date(until), StoreValue.date(now))
        var held: Set<Int64> = []
        // In order, so that two processes taking lanes at once lock their rows in one order.
        for batch in StoreBatches.cut(chats.sorted()) {
            let rows = try session.rows(table.take[batch.count]!, batch.flatMap { [.integer($0), owner, until] } + [now])
            for row in rows { held.insert(try row.get(0)) }
        }
        return held
    }

    /// Moves the end of `owner`'s lease of `chat` to `until`; false if it is no longer theirs.
    func renewLane(_ chat: Int64, in table: LaneTable, owner: String, until: Date) throws -> Bool {
        try session.execute(
            "UPDATE \(table.rawValue) SET expiresAt = ? WHERE chatID = ? AND owner = ?", [.date(until), .integer(chat), .text(owner)]
        ) > 0
    }

    /// Gives up `owner`'s lanes of `chats`: another process may work on them at once.
    func releaseLanes(_ chats: some Collection<Int64>, in table: LaneTable, owner: String) throws {
        for batch in StoreBatches.cut(chats.sorted()) {
            _ = try session.execute(table.release[batch.count]!, [.text(owner)] + batch.map { .integer($0) })
        }
    }
}
