import Networking

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
