import Networking

/// What the bot needs of a message it sent: its id, the chat it went to and, for a photo,
/// the file id to send it again by. Telegram answers every `sendMessage` with the whole
/// message; reading only these keeps that answer cheap.
public struct SentMessage: Codable, JSONReadable, Sendable, Equatable {
    public var messageID: Int64
    public var chatID: Int64
    /// The `file_id` of the largest size of the message's photo; nil for a text message.
    public var photoFileID: String?

    public init(messageID: Int64, chatID: Int64, photoFileID: String? = nil) {
        self.messageID = messageID
        self.chatID = chatID
        self.photoFileID = photoFileID
    }

    private enum CodingKeys: String, CodingKey {
        case messageID = "message_id", chat, photo
    }

    private enum ChatKeys: String, CodingKey {
        case id
    }

    /// One `PhotoSize`, as the bot writes it back (`encode(to:)`).
    private struct PhotoSize: Encodable {
        var fileID: String

        enum CodingKeys: String, CodingKey { case fileID = "file_id" }
    }

    public init(json: JSONNode) throws {
        messageID = try json.required("message_id") { $0.int64 }
        chatID = try json.required("chat") { chat in try chat.required("id") { $0.int64 } }
        photoFileID = json["photo"].flatMap(Self.largestPhoto)
    }

    public init(from decoder: any Decoder) throws {
        try self.init(json: JSONNode(decoding: decoder))
    }

    /// The `file_id` of the largest size. Telegram lists sizes smallest first; on a tie of
    /// areas, the later one wins. A malformed list only loses the file id: the message was
    /// still sent.
    private static func largestPhoto(in sizes: JSONNode) -> String? {
        guard sizes.isArray else { return nil }
        // Only the winner's id becomes a `String`.
        var best: (fileID: JSONNode, area: Double)?
        for size in sizes.elements {
            guard let fileID = size["file_id"], fileID.isString else { return nil }
            // In Double: the product of two huge integers would overflow.
            let area = side(size["width"]) * side(size["height"])
            if best.map({ $0.area <= area }) ?? true { best = (fileID, area) }
        }
        return best?.fileID.string
    }

    /// A width or height: a number, read as an integer where it is one; 0 if missing.
    private static func side(_ node: JSONNode?) -> Double {
        guard let node else { return 0 }
        return node.int64.map(Double.init) ?? node.double ?? 0
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(messageID, forKey: .messageID)
        var chat = c.nestedContainer(keyedBy: ChatKeys.self, forKey: .chat)
        try chat.encode(chatID, forKey: .id)
        if let photoFileID { try c.encode([PhotoSize(fileID: photoFileID)], forKey: .photo) }
    }
}

/// Telegram's answer to a message the outbox sent or edited: the message, or none for an
/// edit that Telegram answers with `true`.
public struct MessageReceipt: JSONReadable, Sendable, Equatable {
    public var message: SentMessage?

    public init(message: SentMessage?) {
        self.message = message
    }

    public init(json: JSONNode) throws {
        message = json.bool != nil ? nil : try SentMessage(json: json)
    }
}

/// An answer whose content the bot does not need (an edit returns the message or `true`):
/// nothing of it is read.
public struct IgnoredResult: JSONReadable, Sendable, Equatable {
    public init() {}
    public init(json: JSONNode) {}
}
