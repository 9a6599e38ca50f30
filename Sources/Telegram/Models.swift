import Networking

// Bot API types, reduced to the fields the bot reads. Decoding ignores every other field,
// so new Bot API fields never break it.

/// An incoming update. Kinds this bot does not handle decode with all fields `nil`.
public struct Update: Codable, JSONReadable, Sendable, Equatable {
    public let updateID: Int64
    /// What the update carries, behind one reference: an update passes from the poller to its
    /// chat's queue to its handler, and its kinds together take over a kilobyte inline.
    private let content: Content

    public var message: Message? { content.message }
    public var editedMessage: Message? { content.editedMessage }
    public var channelPost: Message? { content.channelPost }
    public var callbackQuery: CallbackQuery? { content.callbackQuery }
    public var inlineQuery: InlineQuery? { content.inlineQuery }
    public var chosenInlineResult: ChosenInlineResult? { content.chosenInlineResult }
    /// The bot was added to a chat or removed from it, or blocked or unblocked.
    public var myChatMember: ChatMemberUpdated? { content.myChatMember }

    private final class Content: Sendable {
        let message: Message?
        let editedMessage: Message?
        let channelPost: Message?
        let callbackQuery: CallbackQuery?
        let inlineQuery: InlineQuery?
        let chosenInlineResult: ChosenInlineResult?
        let myChatMember: ChatMemberUpdated?

        init(
            message: Message?, editedMessage: Message?, channelPost: Message?, callbackQuery: CallbackQuery?, inlineQuery: InlineQuery?,
            chosenInlineResult: ChosenInlineResult?, myChatMember: ChatMemberUpdated?
        ) {
            self.message = message
            self.editedMessage = editedMessage
            self.channelPost = channelPost
            self.callbackQuery = callbackQuery
            self.inlineQuery = inlineQuery
            self.chosenInlineResult = chosenInlineResult
            self.myChatMember = myChatMember
        }
    }

    enum CodingKeys: String, CodingKey {
        case updateID = "update_id", message, editedMessage = "edited_message", channelPost = "channel_post"
        case callbackQuery = "callback_query", inlineQuery = "inline_query", chosenInlineResult = "chosen_inline_result"
        case myChatMember = "my_chat_member"
    }

    public init(
        updateID: Int64, message: Message? = nil, editedMessage: Message? = nil, channelPost: Message? = nil,
        callbackQuery: CallbackQuery? = nil, inlineQuery: InlineQuery? = nil, chosenInlineResult: ChosenInlineResult? = nil,
        myChatMember: ChatMemberUpdated? = nil
    ) {
        self.updateID = updateID
        content = Content(
            message: message, editedMessage: editedMessage, channelPost: channelPost, callbackQuery: callbackQuery, inlineQuery: inlineQuery,
            chosenInlineResult: chosenInlineResult, myChatMember: myChatMember
        )
    }

    public init(json: JSONNode) throws {
        self.init(
            updateID: try json.required("update_id") { $0.int64 },
            message: try json.optional("message", as: Message.self),
            editedMessage: try json.optional("edited_message", as: Message.self),
            channelPost: try json.optional("channel_post", as: Message.self),
            callbackQuery: try json.optional("callback_query", as: CallbackQuery.self),
            inlineQuery: try json.optional("inline_query", as: InlineQuery.self),
            chosenInlineResult: try json.optional("chosen_inline_result", as: ChosenInlineResult.self),
            myChatMember: try json.optional("my_chat_member", as: ChatMemberUpdated.self)
        )
    }

    public init(from decoder: any Decoder) throws {
        try self.init(json: JSONNode(decoding: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(updateID, forKey: .updateID)
        try c.encodeIfPresent(message, forKey: .message)
        try c.encodeIfPresent(editedMessage, forKey: .editedMessage)
        try c.encodeIfPresent(channelPost, forKey: .channelPost)
        try c.encodeIfPresent(callbackQuery, forKey: .callbackQuery)
        try c.encodeIfPresent(inlineQuery, forKey: .inlineQuery)
        try c.encodeIfPresent(chosenInlineResult, forKey: .chosenInlineResult)
        try c.encodeIfPresent(myChatMember, forKey: .myChatMember)
    }

    public static func == (a: Update, b: Update) -> Bool {
        a.updateID == b.updateID && a.message == b.message && a.editedMessage == b.editedMessage && a.channelPost == b.channelPost
            && a.callbackQuery == b.callbackQuery && a.inlineQuery == b.inlineQuery && a.chosenInlineResult == b.chosenInlineResult
            && a.myChatMember == b.myChatMember
    }

    /// The chat the update belongs to, for ordering work per chat.
    public var chatID: Int64? {
        (message ?? editedMessage ?? channelPost ?? callbackQuery?.message)?.chat.id ?? myChatMember?.chat.id
    }

    /// What the update is, independent of its `update_id`: Telegram renumbers updates after
    /// a quiet week, so an id may come back for a different update. A message is known by
    /// its chat and message id, a button press by its query id. Nil for kinds the bot
    /// does not handle.
    public var identity: String? {
        if let message { return "m:\(message.chat.id):\(message.messageID)" }
        if let callbackQuery { return "c:\(callbackQuery.id)" }
        if let editedMessage { return "e:\(editedMessage.chat.id):\(editedMessage.messageID)" }
        if let channelPost { return "p:\(channelPost.chat.id):\(channelPost.messageID)" }
        if let inlineQuery { return "i:\(inlineQuery.id)" }
        if let chosen = chosenInlineResult { return "r:\(chosen.inlineMessageID ?? "\(chosen.from.id):\(chosen.resultID)")" }
        // No id of its own: a change is its chat, its moment and what it changed.
        if let change = myChatMember {
            return "k:\(change.chat.id):\(change.date):\(change.oldChatMember.status)>\(change.newChatMember.status)"
        }
        return nil
    }
}

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

    enum CodingKeys: String, CodingKey {
        case id, isBot = "is_bot", firstName = "first_name", username
    }

    public init(id: Int64, isBot: Bool = false, firstName: String, username: String? = nil) {
        self.id = id
        self.isBot = isBot
        self.firstName = firstName
        self.username = username
    }

    public init(json: JSONNode) throws {
        id = try json.required("id") { $0.int64 }
        isBot = try json.required("is_bot") { $0.bool }
        firstName = try json.required("first_name") { $0.string }
        username = try json.optional("username") { $0.string }
    }

    public init(from decoder: any Decoder) throws {
        try self.init(json: JSONNode(decoding: decoder))
    }
}

public struct CallbackQuery: Codable, JSONReadable, Sendable, Equatable {
    public var id: String
    public var from: User
    /// The message the button was on; missing when it is too old to be accessible.
    public var message: Message?
    /// Set instead of `message` for a button on a message sent in inline mode.
    public var inlineMessageID: String?
    public var data: String?

    public init(id: String, from: User, message: Message? = nil, inlineMessageID: String? = nil, data: String? = nil) {
        self.id = id
        self.from = from
        self.message = message
        self.inlineMessageID = inlineMessageID
        self.data = data
    }

    enum CodingKeys: String, CodingKey { case id, from, message, inlineMessageID = "inline_message_id", data }

    public init(json: JSONNode) throws {
        id = try json.required("id") { $0.string }
        from = try json.required("from", as: User.self)
        // An inaccessible message has `date: 0` and no text (see `Message.isInaccessible`).
        message = try? json.optional("message", as: Message.self)
        inlineMessageID = try? json.optional("inline_message_id") { $0.string }
        data = try json.optional("data") { $0.string }
    }

    public init(from decoder: any Decoder) throws {
        try self.init(json: JSONNode(decoding: decoder))
    }
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

/// Who sees a command menu.
public enum BotCommandScope: String, Sendable {
    case `default`
    case allPrivateChats = "all_private_chats"
    case allGroupChats = "all_group_chats"
    case allChatAdministrators = "all_chat_administrators"
}

public struct BotDescription: JSONReadable, Sendable, Equatable {
    public var description: String

    public init(json: JSONNode) throws {
        description = try json.required("description") { $0.string }
    }
}

public struct BotShortDescription: JSONReadable, Sendable, Equatable {
    public var shortDescription: String

    public init(json: JSONNode) throws {
        shortDescription = try json.required("short_description") { $0.string }
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

