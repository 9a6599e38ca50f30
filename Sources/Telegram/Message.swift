import Networking

// Bot API types, reduced to the fields the bot reads. Decoding ignores every other field,
// so new Bot API fields never break it.

public struct Message: Codable, JSONReadable, Sendable, Equatable {
    public var messageID: Int64
    public var from: User?
    /// The chat a message was sent on behalf of: the group itself for an anonymous admin,
    /// or a channel.
    public var senderChat: Chat?
    public var chat: Chat
    /// 0 for an inaccessible message: deleted, or one the bot can no longer see.
    public var date: Int64?
    public var text: String?
    /// Set on the service message a group sends when it becomes a supergroup.
    public var migrateToChatID: Int64?
    /// The forum topic (or the thread of a reply) the message belongs to.
    public var messageThreadID: Int64?
    /// True when the message was sent in a forum topic.
    public var isTopicMessage: Bool?
    /// True for a channel post that Telegram forwarded into the linked discussion group.
    public var isAutomaticForward: Bool?
    /// True for a photo message (its text is then a caption, which is not decoded): a button
    /// under a photo edits the photo, not a text.
    public var hasPhoto: Bool

    enum CodingKeys: String, CodingKey {
        case messageID = "message_id", from, senderChat = "sender_chat", chat, date, text
        case migrateToChatID = "migrate_to_chat_id", messageThreadID = "message_thread_id"
        case isTopicMessage = "is_topic_message", isAutomaticForward = "is_automatic_forward", photo
    }

    public init(
        messageID: Int64, from: User? = nil, senderChat: Chat? = nil, chat: Chat, date: Int64? = nil, text: String? = nil,
        migrateToChatID: Int64? = nil, messageThreadID: Int64? = nil, isTopicMessage: Bool? = nil, isAutomaticForward: Bool? = nil,
        hasPhoto: Bool = false
    ) {
        self.messageID = messageID
        self.from = from
        self.senderChat = senderChat
        self.chat = chat
        self.date = date
        self.text = text
        self.migrateToChatID = migrateToChatID
        self.messageThreadID = messageThreadID
        self.isTopicMessage = isTopicMessage
        self.isAutomaticForward = isAutomaticForward
        self.hasPhoto = hasPhoto
    }

    public init(json: JSONNode) throws {
        messageID = try json.required("message_id") { $0.int64 }
        from = try json.optional("from", as: User.self)
        senderChat = try json.optional("sender_chat", as: Chat.self)
        chat = try json.required("chat", as: Chat.self)
        date = try json.optional("date") { $0.int64 }
        text = try json.optional("text") { $0.string }
        migrateToChatID = try json.optional("migrate_to_chat_id") { $0.int64 }
        messageThreadID = try json.optional("message_thread_id") { $0.int64 }
        isTopicMessage = try json.optional("is_topic_message") { $0.bool }
        isAutomaticForward = try json.optional("is_automatic_forward") { $0.bool }
        // Only whether there are sizes at all: the sizes themselves are never read.
        hasPhoto = !(json["photo"]?.elements.isEmpty ?? true)
    }

    public init(from decoder: any Decoder) throws {
        try self.init(json: JSONNode(decoding: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(messageID, forKey: .messageID)
        try c.encodeIfPresent(from, forKey: .from)
        try c.encodeIfPresent(senderChat, forKey: .senderChat)
        try c.encode(chat, forKey: .chat)
        try c.encodeIfPresent(date, forKey: .date)
        try c.encodeIfPresent(text, forKey: .text)
        try c.encodeIfPresent(migrateToChatID, forKey: .migrateToChatID)
        try c.encodeIfPresent(messageThreadID, forKey: .messageThreadID)
        try c.encodeIfPresent(isTopicMessage, forKey: .isTopicMessage)
        try c.encodeIfPresent(isAutomaticForward, forKey: .isAutomaticForward)
        // One empty size stands for the photo, which is all that decoding reads back.
        if hasPhoto {
            var photo = c.nestedUnkeyedContainer(forKey: .photo)
            try photo.encode([String: Int]())
        }
    }

    /// A message the bot can no longer see: a button press on it may still arrive.
    public var isInaccessible: Bool { date == 0 }

    /// The forum topic that replies must go to; nil outside topics (the General topic takes none).
    public var topicID: Int64? { isTopicMessage == true ? messageThreadID : nil }

    /// An anonymous group admin: Telegram sends their messages on behalf of the group itself.
    public var isFromAnonymousAdmin: Bool {
        senderChat?.id == chat.id && chat.type != "channel"
    }
}

public struct Chat: Codable, JSONReadable, Sendable, Equatable {
    public var id: Int64
    /// `private`, `group`, `supergroup` or `channel`.
    public var type: String
    public var title: String?

    enum CodingKeys: String, CodingKey { case id, type, title, isForum = "is_forum" }

    public init(id: Int64, type: String, title: String? = nil, isForum: Bool? = nil) {
        self.id = id
        self.type = type
        self.title = title
        self.isForum = isForum
    }

    public init(json: JSONNode) throws {
        id = try json.required("id") { $0.int64 }
        type = try json.required("type") { $0.string }
        title = try json.optional("title") { $0.string }
        isForum = try json.optional("is_forum") { $0.bool }
    }

    public init(from decoder: any Decoder) throws {
        try self.init(json: JSONNode(decoding: decoder))
    }

    public var isPrivate: Bool { type == "private" }
    /// True for a supergroup with topics.
    public var isForum: Bool?
}

public struct User: Codable, JSONReadable, Sendable, Equatable {
    public var id: Int64
    public var isBot: Bool
    public var firstName: String
    public var username: String?
    /// The IETF language tag of the user's Telegram app (`de`, `pt-br`), if Telegram says.
    public var languageCode: String?

    enum CodingKeys: String, CodingKey {
        case id, isBot = "is_bot", firstName = "first_name", username, languageCode = "language_code"
    }

    public init(id: Int64, isBot: Bool = false, firstName: String, username: String? = nil, languageCode: String? = nil) {
        self.id = id
        self.isBot = isBot
        self.firstName = firstName
        self.username = username
        self.languageCode = languageCode
    }

    public init(json: JSONNode) throws {
        id = try json.required("id") { $0.int64 }
        isBot = try json.required("is_bot") { $0.bool }
        firstName = try json.required("first_name") { $0.string }
        username = try json.optional("username") { $0.string }
        languageCode = try json.optional("language_code") { $0.string }
    }

    public init(from decoder: any Decoder) throws {
        try self.init(json: JSONNode(decoding: decoder))
    }
}
