import Foundation
import Networking
import Telegram

/// The outbox: every message the bot sends, as rows of `outbox` that move from pending to
/// sending to a final state (see `OutboxMessage.State`), each with its request in `outboxBody`.
extension StoreTransaction {
    /// Writes messages to the outbox, in order; returns them with their ids.
    public func enqueue(_ messages: [OutboxMessage], at now: Date) throws -> [OutboxMessage] {
        let created = StoreValue.date(now)
        return try messages.map { message in
            var message = message
            // Encoded once: the same bytes are stored and, later, sent.
            let parameters = message.request.encodeParameters()
            let upload = message.request.attachments[OutboxCoding.photoPart]?.data
            message.id = try session.insert(
                "INSERT INTO outbox (chatID, kind, state, createdAt, expiresAt, uploads) VALUES (?, ?, 'pending', ?, ?, ?)",
                [.integer(message.chatID), .text(message.kind.rawValue), created, .date(message.expiresAt), .integer(upload == nil ? 0 : 1)]
            )
            _ = try session.execute("INSERT INTO outboxBody (id, method, parameters, upload, collage) VALUES (?, ?, ?, ?, ?)", [
                .integer(message.id), .text(message.request.method), .blob(parameters), StoreValue(upload), StoreValue(message.photoKey),
            ])
            return message
        }
    }

    /// Marks messages as sending, those still pending: the moment after which a crash counts
    /// each as possibly sent. Returns the ids marked; one left out was taken by another process first.
    func claimForSending(_ ids: some Collection<Int64>, owner: String, at now: Date) throws -> Set<Int64> {
        let (owner, now) = (StoreValue.text(owner), StoreValue.date(now))
        // A statement per message: SQLite runs a list of ids or a `RETURNING` through a table
        // it makes for the run, which costs more than the statements.
        return try Set(ids.sorted().filter { id in
            try session.execute(
                "UPDATE outbox SET state = 'sending', owner = ?, sendingAt = ? WHERE id = ? AND state = 'pending'", [owner, now, .integer(id)]
            ) > 0
        })
    }

    /// The chats of `messages` with a message waiting that is older than the first of theirs here.
    func chatsWithOlderPending(than messages: [OutboxMessage]) throws -> Set<Int64> {
        let firsts = messages.reduce(into: [Int64: Int64]()) { firsts, message in
            firsts[message.chatID] = min(firsts[message.chatID] ?? .max, message.id)
        }
        return try Set(firsts.filter { chat, first in
            try session.value("SELECT 1 FROM outbox WHERE chatID = ? AND state = 'pending' AND id < ? LIMIT 1", [.integer(chat), .integer(first)])
                as Int64? != nil
        }.keys)
    }

    /// A message that certainly never left waits again.
    func returnToPending(_ id: Int64) throws {
        _ = try session.execute("UPDATE outbox SET state = 'pending', owner = NULL, sendingAt = NULL WHERE id = ? AND state = 'sending'", [.integer(id)])
    }

    /// Records what became of a message: sent (with Telegram's message id), unconfirmed, or
    /// dropped; with `ifPending`, only if no process has taken it meanwhile.
    func settle(
        _ message: OutboxMessage, as state: OutboxMessage.State, messageID: Int64? = nil, note: String? = nil, ifPending: Bool = false,
        at now: Date
    ) throws {
        let sql = ifPending
            ? "UPDATE outbox SET state = ?, messageID = ?, note = ?, doneAt = ? WHERE id = ? AND state = 'pending'"
            : "UPDATE outbox SET state = ?, messageID = ?, note = ?, doneAt = ? WHERE id = ?"
        let changed = try session.execute(sql, [.text(state.rawValue), StoreValue(messageID), StoreValue(note), .date(now), .integer(message.id)])
        if changed > 0, message.uploads { try dropUploads(of: [message.id]) }
    }

    /// Records messages as sent, with Telegram's ids for them.
    func recordSent(_ receipts: [OutboxReceipt], at now: Date) throws {
        guard !receipts.isEmpty else { return }
        let date = StoreValue.date(now)
        for receipt in receipts {
            _ = try session.execute("UPDATE outbox SET state = 'sent', messageID = ?, doneAt = ? WHERE id = ?", [StoreValue(receipt.messageID), date, .integer(receipt.id)])
        }
        try dropUploads(of: receipts.filter(\.uploads).map(\.id))
    }

    /// A settled message is never sent again: the picture it uploads goes at once, not when its
    /// row is pruned. Done here, for the messages that upload one, and not by a trigger: a
    /// trigger on the outbox makes SQLite keep a statement journal for every change of state,
    /// a text message's too.
    private func dropUploads(of ids: [Int64]) throws {
        for id in ids { _ = try session.execute("UPDATE outboxBody SET upload = NULL WHERE id = ? AND upload IS NOT NULL", [.integer(id)]) }
    }

    /// The ids of the rows a settling `UPDATE … RETURNING id, uploads` changed, their pictures dropped.
    private func settled(_ sql: String, _ arguments: [StoreValue]) throws -> [Int64] {
        let rows = try session.rows(sql, arguments)
        try dropUploads(of: rows.filter { try $0.get(1) as Int64 == 1 }.map { try $0.get(0) })
        return try rows.map { try $0.get(0) }
    }

    /// Drops every message still waiting for `chat`, which can no longer be posted to;
    /// returns their ids.
    func dropPending(chat: Int64, note: String, at now: Date) throws -> [Int64] {
        try settled(
            "UPDATE outbox SET state = 'dropped', note = ?, doneAt = ? WHERE state = 'pending' AND chatID = ? RETURNING id, uploads",
            [.text(note), .date(now), .integer(chat)]
        )
    }

    /// A group became a supergroup: the messages still waiting for it go to the new id, in
    /// the order they were enqueued.
    func moveWaitingMessages(from old: Int64, to new: Int64) throws {
        let rows = try session.rows("""
            SELECT b.id, b.method, b.parameters FROM outbox o JOIN outboxBody b ON b.id = o.id
            WHERE o.state = 'pending' AND o.chatID = ?
            """, [.integer(old)])
        guard !rows.isEmpty else { return }
        for row in rows {
            var request = TelegramRequest<MessageReceipt>(method: try row.get(1), encodedParameters: try row.get(2)).redirected(to: new)
            _ = try session.execute("UPDATE outboxBody SET parameters = ? WHERE id = ?", [.blob(request.encodeParameters()), .integer(try row.get(0))])
        }
        _ = try session.execute("UPDATE outbox SET chatID = ? WHERE state = 'pending' AND chatID = ?", [.integer(new), .integer(old)])
    }

    /// Messages left "sending" by a process that is gone (none sends for as long as
    /// `before` lies back): they may have left, so they are never sent again.
    func settleAbandoned(sendingBefore cutoff: Date, at now: Date) throws -> Int {
        try settled("""
            UPDATE outbox SET state = 'unconfirmed', note = 'its process stopped while sending it', doneAt = ?
            WHERE state = 'sending' AND sendingAt < ? RETURNING id, uploads
            """, [.date(now), .date(cutoff)]).count
    }

    /// Forgets up to `limit` messages: those done before `cutoff`, then the oldest done ones
    /// beyond `keeping`; returns how many. Their bodies go with them (a cascade).
    func pruneOutbox(doneBefore cutoff: Date, keeping: Int, limit: Int) throws -> Int {
        // Oldest first, so that a batch is found without reading the rows that stay.
        let old = try session.execute("""
            DELETE FROM outbox WHERE id IN (
                SELECT id FROM outbox WHERE state IN ('sent', 'unconfirmed', 'dropped') AND doneAt < ? ORDER BY id LIMIT ?)
            """, [.date(cutoff), .integer(Int64(limit))])
        guard old < limit else { return old }
        return try old + session.execute("""
            DELETE FROM outbox WHERE id IN (
                SELECT id FROM outbox WHERE state IN ('sent', 'unconfirmed', 'dropped') ORDER BY id DESC LIMIT ? OFFSET ?)
            """, [.integer(Int64(limit - old)), .integer(Int64(keeping))])
    }
}

extension BotStore {
    /// The picture a message uploads, as enqueued.
    func upload(of message: OutboxMessage) async throws -> InputFile? {
        try await read { session in
            let upload: Data?? = try session.value("SELECT upload FROM outboxBody WHERE id = ?", [.integer(message.id)])
            return (upload ?? nil).map(OutboxCoding.photo)
        }
    }

    /// What became of the messages with these ids, for a process waiting on them.
    public func outboxStates(of ids: [Int64]) async throws -> [Int64: OutboxMessage.State] {
        try await read { session in
            let rows = try session.rows(
                "SELECT id, state FROM outbox WHERE id IN (\(ids.map { _ in "?" }.joined(separator: ",")))", ids.map { .integer($0) }, keepPrepared: false
            )
            return Dictionary(uniqueKeysWithValues: try rows.compactMap { row in
                try (row.get(1) as String?).flatMap(OutboxMessage.State.init).map { (try row.get(0) as Int64, $0) }
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
    static func messages(_ ids: [Int64], in session: any StoreSession) throws -> [OutboxMessage] {
        guard !ids.isEmpty else { return [] }
        return try session.rows("""
            SELECT o.id, o.chatID, o.kind, b.method, b.parameters, b.upload IS NOT NULL AS uploads, b.collage, o.expiresAt
            FROM outbox o JOIN outboxBody b ON b.id = o.id
            WHERE o.id IN (\(ids.map { _ in "?" }.joined(separator: ","))) ORDER BY o.id
            """, ids.map { .integer($0) }, keepPrepared: false).compactMap(message)
    }

    static func photo(_ data: Data) -> InputFile {
        InputFile(filename: "collage.jpg", contentType: "image/jpeg", data: data)
    }

    /// A row read back, without its upload's bytes; nil for one this version cannot read
    /// (it is then left alone).
    static func message(_ row: StoreRow) -> OutboxMessage? {
        let encoded = (try? row.get(4) as Data?) ?? Data()
        guard let id = try? row.get(0) as Int64, let chatID = try? row.get(1) as Int64,
              let kind = (try? row.get(2) as String).flatMap(OutboxMessage.Kind.init), let method = try? row.get(3) as String,
              (try? JSONNode(parsing: [UInt8](encoded)))?.isObject == true,
              let uploads = try? row.get(5) as Bool, let expiresAt = try? row.get(7) as Date
        else { return nil }
        var message = OutboxMessage(
            chatID: chatID, kind: kind, request: TelegramRequest<MessageReceipt>(method: method, encodedParameters: encoded),
            photoKey: try? row.get(6) as String?, expiresAt: expiresAt
        )
        message.id = id
        message.uploadInRow = uploads
        return message
    }
}
