// Bot API types, reduced to the fields the bot reads. Decoding ignores every other field,
// so new Bot API fields never break it.

/// An incoming update. Kinds this bot does not handle decode with all fields `nil`.
public struct Update: Codable, Sendable, Equatable {
    public var updateID: Int64
    public var message: Message?
    public var editedMessage: Message?
    public var channelPost: Message?
    public var callbackQuery: CallbackQuery?

    enum CodingKeys: String, CodingKey {
        case updateID = "update_id", message, editedMessage = "edited_message", channelPost = "channel_post"
        case callbackQuery = "callback_query"
    }

    public init(updateID: Int64, message: Message? = nil, editedMessage: Message? = nil, channelPost: Message? = nil, callbackQuery: CallbackQuery? = nil) {
        self.updateID = updateID
        self.message = message
        self.editedMessage = editedMessage
        self.channelPost = channelPost
        self.callbackQuery = callbackQuery
    }

    /// The chat the update belongs to, for ordering work per chat.
    public var chatID: Int64? {
        (message ?? editedMessage ?? channelPost ?? callbackQuery?.message)?.chat.id
    }
}

public struct Message: Codable, Sendable, Equatable {
    public var messageID: Int64
    public var from: User?
    public var chat: Chat
    public var date: Int64?
    public var text: String?
    /// Set on the service message a group sends when it becomes a supergroup.
    public var migrateToChatID: Int64?

    enum CodingKeys: String, CodingKey {
        case messageID = "message_id", from, chat, date, text, migrateToChatID = "migrate_to_chat_id"
    }

    public init(messageID: Int64, from: User? = nil, chat: Chat, date: Int64? = nil, text: String? = nil, migrateToChatID: Int64? = nil) {
        self.messageID = messageID
        self.from = from
        self.chat = chat
        self.date = date
        self.text = text
        self.migrateToChatID = migrateToChatID
    }
}

public struct Chat: Codable, Sendable, Equatable {
    public var id: Int64
    /// `private`, `group`, `supergroup` or `channel`.
    public var type: String
    public var title: String?

    public init(id: Int64, type: String, title: String? = nil) {
        self.id = id
        self.type = type
        self.title = title
    }

    public var isPrivate: Bool { type == "private" }
}

public struct User: Codable, Sendable, Equatable {
    public var id: Int64
    public var isBot: Bool
    public var firstName: String
    public var username: String?

    enum CodingKeys: String, CodingKey {
        case id, isBot = "is_bot", firstName = "first_name", username
    }

    public init(id: Int64, isBot: Bool = false, firstName: String, username: String? = nil) {
        self.id = id
        self.isBot = isBot
        self.firstName = firstName
        self.username = username
    }
}

public struct CallbackQuery: Codable, Sendable, Equatable {
    public var id: String
    public var from: User
    /// The message the button was on; missing when it is too old to be accessible.
    public var message: Message?
    public var data: String?

    public init(id: String, from: User, message: Message? = nil, data: String? = nil) {
        self.id = id
        self.from = from
        self.message = message
        self.data = data
    }

    enum CodingKeys: String, CodingKey { case id, from, message, data }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        from = try c.decode(User.self, forKey: .from)
        // An inaccessible message has `date: 0` and no text; keep it only if it decodes.
        message = try? c.decodeIfPresent(Message.self, forKey: .message)
        data = try c.decodeIfPresent(String.self, forKey: .data)
    }
}

public struct ChatMember: Codable, Sendable, Equatable {
    /// `creator`, `administrator`, `member`, …
    public var status: String
    public var user: User
}

/// An entry of the command menu.
public struct BotCommand: Codable, Sendable, Equatable {
    public var command: String
    public var description: String

    public init(command: String, description: String) {
        self.command = command
        self.description = description
    }
}

/// An inline keyboard: rows of callback buttons.
public struct InlineKeyboard: Sendable, Equatable {
    public struct Button: Sendable, Equatable {
        public var text: String
        public var callbackData: String

        public init(text: String, callbackData: String) {
            self.text = text
            self.callbackData = callbackData
        }
    }

    public var rows: [[Button]]

    public init(rows: [[Button]]) {
        self.rows = rows.filter { !$0.isEmpty }
    }

    var json: JSONValue {
        .object(["inline_keyboard": .array(rows.map { row in
            .array(row.map { .object(["text": .string($0.text), "callback_data": .string($0.callbackData)]) })
        })])
    }
}
