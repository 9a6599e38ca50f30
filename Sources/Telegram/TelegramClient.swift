/// The one Bot API client protocol. The HTTP client implements it, and so does every adaptor
/// (throttle, auto-retry, migration), each wrapping another client, teloxide-style: code
/// that sends messages never knows which adaptors are in the chain.
public protocol TelegramClient: Sendable {
    /// Performs one call. Throws `TelegramError` or `CancellationError`.
    func send<Response>(_ request: TelegramRequest<Response>) async throws -> Response
}

extension TelegramClient {
    public func getMe() async throws -> User {
        try await send(.getMe())
    }

    /// One long poll; unreadable updates come back with only their id.
    public func getUpdates(
        offset: Int64?, limit: Int = 100, timeout: Int, allowedUpdates: [String], requestTimeout: Duration? = nil
    ) async throws -> [Update] {
        try await send(.getUpdates(
            offset: offset, limit: limit, timeout: timeout, allowedUpdates: allowedUpdates, requestTimeout: requestTimeout
        )).map(\.update)
    }

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

    public func setMyCommands(_ commands: [BotCommand], scope: BotCommandScope = .default) async throws {
        _ = try await send(.setMyCommands(commands, scope: scope))
    }

    public func deleteWebhook() async throws {
        _ = try await send(.deleteWebhook())
    }

    public func getChatAdministrators(chatID: Int64) async throws -> [ChatMember] {
        try await send(.getChatAdministrators(chatID: chatID))
    }
}
