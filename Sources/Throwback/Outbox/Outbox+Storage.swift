import Foundation
import GRDB
import Networking
import Telegram

/// The outbox: every message the bot sends, as rows of `outbox` that move from pending to
/// sending to a final state (see `OutboxMessage.State`), each with its request in `outboxBody`.
extension StoreTransaction {
    /// Writes messages to the outbox, in order; returns them with their ids.
    public func enqueue(_ messages: [OutboxMessage], at now: Date) throws -> [OutboxMessage] {
        let insert = try db.cachedStatement(sql: """
            INSERT INTO outbox (chatID, kind, state, createdAt, expiresAt) VALUES (?, ?, 'pending', ?, ?)
            """)
        let insertBody = try db.cachedStatement(sql: """
            INSERT INTO outboxBody (id, method, parameters, upload, collage) VALUES (?, ?, ?, ?, ?)
            """)
        let created = StoredDate(now)
        return try messages.map { message in
            var message = message
            // Encoded once: the same bytes are stored and, later, sent.
            let parameters = message.request.encodeParameters()
            try insert.execute(arguments: [message.chatID, message.kind.rawValue, created, StoredDate(message.expiresAt)])
            message.id = db.lastInsertedRowID
            try insertBody.execute(arguments: [
                message.id, message.request.method, parameters,
                message.request.attachments[OutboxCoding.photoPart]?.data, message.photoKey,
            ])
            return message
        }
    }

    /// Marks a message as sending, if it is still pending: the moment after which a crash
    /// counts it as possibly sent. False when another process took it first.
    func claimForSending(_ id: Int64, owner: String, at now: Date) throws -> Bool {
        try db.cachedStatement(sql: "UPDATE outbox SET state = 'sending', owner = ?, sendingAt = ? WHERE id = ? AND state = 'pending'")
            .execute(arguments: [owner, StoredDate(now), id])
        return db.changesCount > 0
    }

    /// A message that certainly never left waits again.
    func returnToPending(_ id: Int64) throws {
        try db.cachedStatement(sql: "UPDATE outbox SET state = 'pending', owner = NULL, sendingAt = NULL WHERE id = ? AND state = 'sending'")
            .execute(arguments: [id])
    }

    /// Records what became of a message: sent (with Telegram's message id), unconfirmed, or
    /// dropped; with `ifPending`, only if no process has taken it meanwhile.
    func settle(
        _ id: Int64, as state: OutboxMessage.State, messageID: Int64? = nil, note: String? = nil, ifPending: Bool = false, at now: Date
    ) throws {
        try db.cachedStatement(sql: "UPDATE outbox SET state = ?, messageID = ?, note = ?, doneAt = ? WHERE id = ? AND (? OR state = 'pending')")
            .execute(arguments: [state.rawValue, messageID, note, StoredDate(now), id, !ifPending])
    }

    /// Records messages as sent, with Telegram's ids for them.
    func recordSent(_ sends: [(id: Int64, messageID: Int64?)], at now: Date) throws {
        guard !sends.isEmpty else { return }
        let update = try db.cachedStatement(sql: "UPDATE outbox SET state = 'sent', messageID = ?, doneAt = ? WHERE id = ?")
        let date = StoredDate(now)
        for send in sends { try update.execute(arguments: [send.messageID, date, send.id]) }
    }

    /// Drops every message still waiting for `chat`, which can no longer be posted to;
    /// returns their ids.
    func dropPending(chat: Int64, note: String, at now: Date) throws -> [Int64] {
        let ids = try Int64.fetchAll(db, sql: "SELECT id FROM outbox WHERE state = 'pending' AND chatID = ?", arguments: [chat])
        try db.execute(
            sql: "UPDATE outbox SET state = 'dropped', note = ?, doneAt = ? WHERE state = 'pending' AND chatID = ?",
            arguments: [note, StoredDate(now), chat]
        )
        return ids
    }

    /// A group became a supergroup: the messages still waiting for it go to the new id, in
    /// the order they were enqueued.
    func moveWaitingMessages(from old: Int64, to new: Int64) throws {
        let rows = try Row.fetchAll(db, sql: """
            SELECT b.id, b.method, b.parameters FROM outbox o JOIN outboxBody b ON b.id = o.id
            WHERE o.state = 'pending' AND o.chatID = ?
            """, arguments: [old])
        guard !rows.isEmpty else { return }
        let rewrite = try db.cachedStatement(sql: "UPDATE outboxBody SET parameters = ? WHERE id = ?")
        for row in rows {
            var request = TelegramRequest<MessageReceipt>(method: row["method"], encodedParameters: row["parameters"]).redirected(to: new)
            try rewrite.execute(arguments: [request.encodeParameters(), row["id"] as Int64])
        }
        try db.execute(sql: "UPDATE outbox SET chatID = ? WHERE state = 'pending' AND chatID = ?", arguments: [new, old])
    }

    /// Messages left "sending" by a process that is gone (none sends for as long as
    /// `before` lies back): they may have left, so they are never sent again.
    func settleAbandoned(sendingBefore cutoff: Date, at now: Date) throws -> Int {
        try db.execute(
            sql: "UPDATE outbox SET state = 'unconfirmed', note = 'its process stopped while sending it', doneAt = ? WHERE state = 'sending' AND sendingAt < ?",
            arguments: [StoredDate(now), StoredDate(cutoff)]
        )
        return db.changesCount
    }

    /// Forgets up to `limit` messages: those done before `cutoff`, then the oldest done ones
    /// beyond `keeping`; returns how many. Their bodies go with them (a cascade).
    func pruneOutbox(doneBefore cutoff: Date, keeping: Int, limit: Int) throws -> Int {
        // Oldest first, so that a batch is found without reading the rows that stay.
        try db.execute(sql: """
            DELETE FROM outbox WHERE id IN (
                SELECT id FROM outbox WHERE state IN ('sent', 'unconfirmed', 'dropped') AND doneAt < ? ORDER BY id LIMIT ?)
            """, arguments: [StoredDate(cutoff), limit])
        let old = db.changesCount
        guard old < limit else { return old }
        try db.execute(sql: """
            DELETE FROM outbox WHERE id IN (
                SELECT id FROM outbox WHERE state IN ('sent', 'unconfirmed', 'dropped') ORDER BY id DESC LIMIT ? OFFSET ?)
            """, arguments: [limit - old, keeping])
        return old + db.changesCount
    }
}

extension BotStore {
    /// The picture a message uploads, as enqueued.
    func upload(of message: OutboxMessage) async throws -> InputFile? {
        try await read { db in
            try Data.fetchOne(db, sql: "SELECT upload FROM outboxBody WHERE id = ?", arguments: [message.id]).map(OutboxCoding.photo)
        }
    }

    /// What became of the messages with these ids, for a process waiting on them.
    public func outboxStates(of ids: [Int64]) async throws -> [Int64: OutboxMessage.State] {
        try await read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT id, state FROM outbox WHERE id IN (\(ids.map { _ in "?" }.joined(separator: ",")))",
                                        arguments: StatementArguments(ids))
            return Dictionary(uniqueKeysWithValues: rows.compactMap { row in
                (row["state"] as String?).flatMap(OutboxMessage.State.init).map { (row["id"] as Int64, $0) }
            })
        }
    }
}

/// How an outbox row holds a request: its parameters as JSON, an uploaded photo as its bytes.
enum OutboxCoding {
    /// The part name of the one file a message may upload (`sendPhoto`, `editMessageMedia`).
    static let photoPart = "photo"

    /// The messages with these ids, in order, without the uploads' bytes: they are read one at
    /// a time, as each is sent.
    static func messages(_ ids: [Int64], in db: Database) throws -> [OutboxMessage] {
        guard !ids.isEmpty else { return [] }
        return try Row.fetchAll(db, sql: """
            SELECT o.id, o.chatID, o.kind, b.method, b.parameters, b.upload IS NOT NULL AS uploads, b.collage, o.expiresAt
            FROM outbox o JOIN outboxBody b ON b.id = o.id
            WHERE o.id IN (\(ids.map { _ in "?" }.joined(separator: ","))) ORDER BY o.id
            """, arguments: StatementArguments(ids)).compactMap(message)
    }

    static func photo(_ data: Data) -> InputFile {
        InputFile(filename: "collage.jpg", contentType: "image/jpeg", data: data)
    }

    /// A row read back, without its upload's bytes; nil for one this version cannot read
    /// (it is then left alone).
    static func message(_ row: Row) -> OutboxMessage? {
        let encoded = row["parameters"] as Data? ?? Data()
        guard let kind = (row["kind"] as String?).flatMap(OutboxMessage.Kind.init), let method = row["method"] as String?,
              (try? JSONNode(parsing: [UInt8](encoded)))?.isObject == true,
              let expiresAt = (row["expiresAt"] as StoredDate?)?.date
        else { return nil }
        var message = OutboxMessage(
            chatID: row["chatID"], kind: kind, request: TelegramRequest<MessageReceipt>(method: method, encodedParameters: encoded),
            photoKey: row["collage"] as String?, expiresAt: expiresAt
        )
        message.id = row["id"]
        message.uploadInRow = row["uploads"]
        return message
    }
}
