import Foundation
import Networking

// Bot API types, reduced to the fields the bot reads. Decoding ignores every other field,
// so new Bot API fields never break it.

/// An incoming update. Kinds this bot does not handle decode with all fields `nil`.
public struct Update: Codable, JSONReadable, Sendable, Equatable {
    public let updateID: Int64
    /// What the update carries, behind one reference: an update passes from the poller to its
    /// chat's queue to its handler, and its kinds together take over a kilobyte inline.
    private let content: Content

    public var message: Message? { if case .message(let value) = content.payload { value } else { nil } }
    public var editedMessage: Message? { if case .editedMessage(let value) = content.payload { value } else { nil } }
    public var channelPost: Message? { if case .channelPost(let value) = content.payload { value } else { nil } }
    public var callbackQuery: CallbackQuery? { if case .callbackQuery(let value) = content.payload { value } else { nil } }
    public var inlineQuery: InlineQuery? { if case .inlineQuery(let value) = content.payload { value } else { nil } }
    public var chosenInlineResult: ChosenInlineResult? { if case .chosenInlineResult(let value) = content.payload { value } else { nil } }
    /// The bot was added to a chat or removed from it, or blocked or unblocked.
    public var myChatMember: ChatMemberUpdated? { if case .myChatMember(let value) = content.payload { value } else { nil } }

    /// The one kind an update carries ("at most one of the optional parameters can be present
    /// in any given update", says the Bot API): a burst keeps a few hundred updates waiting
    /// for a worker, and room for every kind at once took seven times the memory of one.
    private final class Content: Sendable {
        enum Payload {
            case message(Message), editedMessage(Message), channelPost(Message), callbackQuery(CallbackQuery)
            case inlineQuery(InlineQuery), chosenInlineResult(ChosenInlineResult), myChatMember(ChatMemberUpdated)
            /// A kind this bot does not handle.
            case none
        }

        let payload: Payload

        init(
            message: Message?, editedMessage: Message?, channelPost: Message?, callbackQuery: CallbackQuery?, inlineQuery: InlineQuery?,
            chosenInlineResult: ChosenInlineResult?, myChatMember: ChatMemberUpdated?
        ) {
            payload = if let message { .message(message) }
                else if let editedMessage { .editedMessage(editedMessage) }
                else if let channelPost { .channelPost(channelPost) }
                else if let callbackQuery { .callbackQuery(callbackQuery) }
                else if let inlineQuery { .inlineQuery(inlineQuery) }
                else if let chosenInlineResult { .chosenInlineResult(chosenInlineResult) }
                else if let myChatMember { .myChatMember(myChatMember) }
                else { .none }
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

/// An update as it arrived: read leniently, so that one whose content does not read keeps its
/// id (the poller can still confirm it) with the rest `nil`, and its JSON as Telegram sent
/// it, which the journal keeps until the update is handled.
public struct ReceivedUpdate: JSONReadable, Sendable {
    public var update: Update
    public var json: [UInt8]

    public init(json node: JSONNode) throws {
        if let update = try? Update(json: node) {
            self.update = update
        } else {
            update = Update(updateID: try node.required("update_id") { $0.int64 })
        }
        json = Array(node.source)
    }

    /// An update made here rather than received (a test's, say), with its JSON encoded.
    public init(_ update: Update) {
        self.update = update
        json = (try? JSONEncoder().encode(update)).map { [UInt8]($0) } ?? []
    }
}
