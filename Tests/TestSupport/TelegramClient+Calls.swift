import Telegram

// The Bot API calls as one-liners, for tests that talk to a fake Telegram directly. The bot
// itself sends chat messages only through its outbox.
extension TelegramClient {
    @discardableResult
    public func sendMessage(
        chatID: Int64, html: String, replyTo: Int64? = nil, topic: Int64? = nil, keyboard: InlineKeyboard? = nil
    ) async throws -> SentMessage {
        try await send(.sendMessage(chatID: chatID, html: html, replyTo: replyTo, topic: topic, keyboard: keyboard))
    }

    public func editMessageText(chatID: Int64, messageID: Int64, html: String, keyboard: InlineKeyboard? = nil) async throws {
        _ = try await send(.editMessageText(chatID: chatID, messageID: messageID, html: html, keyboard: keyboard))
    }

    /// Sends a photo; the answer's `photoFileID` sends it again without uploading it.
    @discardableResult
    public func sendPhoto(
        chatID: Int64, photo: PhotoSource, captionHTML: String, replyTo: Int64? = nil, topic: Int64? = nil, keyboard: InlineKeyboard? = nil
    ) async throws -> SentMessage {
        try await send(.sendPhoto(chatID: chatID, photo: photo, captionHTML: captionHTML, replyTo: replyTo, topic: topic, keyboard: keyboard))
    }

    @discardableResult
    public func editMessageMedia(
        chatID: Int64, messageID: Int64, photo: PhotoSource, captionHTML: String, keyboard: InlineKeyboard? = nil
    ) async throws -> SentMessage {
        try await send(.editMessageMedia(chatID: chatID, messageID: messageID, photo: photo, captionHTML: captionHTML, keyboard: keyboard))
    }

    public func editMessageCaption(chatID: Int64, messageID: Int64, captionHTML: String, keyboard: InlineKeyboard? = nil) async throws {
        _ = try await send(.editMessageCaption(chatID: chatID, messageID: messageID, captionHTML: captionHTML, keyboard: keyboard))
    }

    public func answerCallbackQuery(id: String, text: String? = nil) async throws {
        _ = try await send(.answerCallbackQuery(id: id, text: text))
    }

    public func getChatAdministrators(chatID: Int64) async throws -> [ChatMember] {
        try await send(.getChatAdministrators(chatID: chatID))
    }
}
