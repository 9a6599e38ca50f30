import Networking

/// What a chat shows the bot doing while it prepares an answer: "typing…", "sending a
/// photo…". Telegram shows it for 5 seconds, or until the bot's next message arrives.
public enum ChatAction: String, Sendable {
    /// For a text answer.
    case typing
    /// For a photo answer.
    case uploadPhoto = "upload_photo"
}

extension TelegramRequest {
    /// Shows `action` in a chat, in forum topic `topic` if given. Not a message: no flood
    /// limit of messages applies, and nothing stays in the chat.
    public static func sendChatAction(chatID: Int64, action: ChatAction, topic: Int64? = nil) -> TelegramRequest<TelegramOK> {
        var parameters: [String: JSONValue] = ["chat_id": .int(chatID), "action": .string(action.rawValue)]
        if let topic { parameters["message_thread_id"] = .int(topic) }
        return .init(method: "sendChatAction", parameters: parameters)
    }
}
