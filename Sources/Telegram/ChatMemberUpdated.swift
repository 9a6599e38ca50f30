import Networking

/// A change of the bot's own place in a chat (`my_chat_member`): it was added or removed, made
/// an admin or not, or a person blocked or unblocked it in their private chat. Telegram sends
/// these only to a bot that asks for them in `allowed_updates`.
public struct ChatMemberUpdated: Codable, JSONReadable, Sendable, Equatable {
    public var chat: Chat
    /// Who made the change.
    public var from: User
    /// Unix time of the change.
    public var date: Int64
    public var oldChatMember: ChatMember
    public var newChatMember: ChatMember

    enum CodingKeys: String, CodingKey {
        case chat, from, date, oldChatMember = "old_chat_member", newChatMember = "new_chat_member"
    }

    public init(chat: Chat, from: User, date: Int64, oldChatMember: ChatMember, newChatMember: ChatMember) {
        self.chat = chat
        self.from = from
        self.date = date
        self.oldChatMember = oldChatMember
        self.newChatMember = newChatMember
    }

    public init(json: JSONNode) throws {
        chat = try json.required("chat", as: Chat.self)
        from = try json.required("from", as: User.self)
        date = try json.required("date") { $0.int64 }
        oldChatMember = try json.required("old_chat_member", as: ChatMember.self)
        newChatMember = try json.required("new_chat_member", as: ChatMember.self)
    }

    public init(from decoder: any Decoder) throws {
        try self.init(json: JSONNode(decoding: decoder))
    }
}

/// A member of a chat: who, and where they stand.
public struct ChatMember: Codable, JSONReadable, Sendable, Equatable {
    /// `creator`, `administrator`, `member`, `restricted`, `left` or `kicked`.
    public var status: String
    public var user: User
    /// For `restricted` only: whether they are still in the chat.
    public var isMember: Bool?

    enum CodingKeys: String, CodingKey {
        case status, user, isMember = "is_member"
    }

    public init(status: String, user: User, isMember: Bool? = nil) {
        self.status = status
        self.user = user
        self.isMember = isMember
    }

    public init(json: JSONNode) throws {
        status = try json.required("status") { $0.string }
        user = try json.required("user", as: User.self)
        isMember = try json.optional("is_member") { $0.bool }
    }

    public init(from decoder: any Decoder) throws {
        try self.init(json: JSONNode(decoding: decoder))
    }

    /// Whether they are in the chat: a restricted member may be, or may have left.
    public var isInChat: Bool {
        switch status {
        case "creator", "administrator", "member": true
        case "restricted": isMember == true
        default: false
        }
    }
}
