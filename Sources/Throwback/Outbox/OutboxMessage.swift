import Foundation
import Networking
import Telegram

/// One message on its way out: a reply, a ◀ ▶ edit, a collage, a weekly post's message, a
/// notice. Every message the bot sends is first one of these, written to the outbox in the
/// transaction that settles its cause, and then sent by the `OutboxDeliverer`.
public struct OutboxMessage: Sendable {
    /// What a message is for, which decides how long it may wait.
    public enum Kind: String, Sendable {
        /// An answer to someone: late, it only confuses (`REPLY_TTL`).
        case reply
        /// Part of a weekly post: it keeps until its Last.fm week is over.
        case weekly
    }

    /// Where a message stands. Pending → sending (marked right before its bytes can leave)
    /// → sent; a message that certainly never left goes back to pending, one that may have
    /// left is `unconfirmed` and never sent again.
    public enum State: String, Sendable {
        case pending, sending, sent, unconfirmed, dropped
    }

    /// The row id, in enqueue order; 0 until enqueued.
    public internal(set) var id: Int64 = 0
    /// The chat whose queue it waits in: messages to one chat go out in order.
    public var chatID: Int64
    public var kind: Kind
    public var request: TelegramRequest<MessageReceipt>
    /// The picture an upload is, by its `ReusablePhotos` key: once one upload of it has a
    /// `file_id`, the others send that instead, and the `file_id` is kept.
    public var photoKey: String?
    public var expiresAt: Date
    /// The picture to upload is in the outbox row, not in `request`: read back from the
    /// database, a row's upload is loaded only when it is about to be sent.
    var uploadInRow = false

    /// Whether the message uploads a picture, whose bytes go once it is settled.
    var uploads: Bool { uploadInRow || request.attachments[OutboxCoding.photoPart] != nil }

    public init(
        chatID: Int64, kind: Kind, request: TelegramRequest<some JSONReadable>, photoKey: String? = nil, expiresAt: Date
    ) {
        self.chatID = chatID
        self.kind = kind
        self.request = request.receipted
        self.photoKey = photoKey
        self.expiresAt = expiresAt
    }
}

/// A message Telegram took, to be recorded as sent.
struct OutboxReceipt: Sendable {
    /// The outbox row.
    var id: Int64
    /// The message's id in its chat, for a later edit.
    var messageID: Int64?
    /// It uploaded a picture, whose bytes are then dropped.
    var uploads = false
}

/// How long each kind of message may wait, from `REPLY_TTL` and the Last.fm week.
public struct OutboxLifetimes: Sendable {
    /// A reply older than this is dropped: an answer that late only confuses a group.
    public var reply: Duration

    public init(reply: Duration = .seconds(3600)) {
        self.reply = reply
    }

    /// When a reply to something asked at `asked` stops being worth sending.
    public func replyExpiry(askedAt asked: Date) -> Date {
        asked.addingTimeInterval(reply.seconds)
    }
}
