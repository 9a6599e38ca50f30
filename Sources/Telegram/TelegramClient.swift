import Networking

/// The one Bot API client protocol. The HTTP client implements it, and so does every adaptor
/// (auto-retry, migration, instrumentation), each wrapping another client, teloxide-style:
/// code that calls Telegram never knows which adaptors are in the chain. Chat messages are
/// not sent through it directly but through the outbox, which has no shortcut here.
public protocol TelegramClient: ServiceClient {
    /// Performs one call. Throws `TelegramError` or `CancellationError`.
    func send<Response>(_ request: TelegramRequest<Response>) async throws -> Response
}

extension TelegramRequest: APIRequest {}

extension Adapted: TelegramClient where Base: TelegramClient {
    public func send<Response>(_ request: TelegramRequest<Response>) async throws -> Response {
        try await adaptor.call(request) { try await base.send(request) }
    }
}

extension TelegramClient {
    public func getMe() async throws -> User {
        try await send(.getMe())
    }

    /// One long poll; unreadable updates come back with only their id.
    public func getUpdates(
        offset: Int64?, limit: Int = 100, timeout: Int, allowedUpdates: [String], requestTimeout: Duration? = nil
    ) async throws -> [ReceivedUpdate] {
        try await send(.getUpdates(
            offset: offset, limit: limit, timeout: timeout, allowedUpdates: allowedUpdates, requestTimeout: requestTimeout
        ))
    }

    public func setMyCommands(_ commands: [BotCommand], scope: BotCommandScope = .default, languageCode: String? = nil) async throws {
        _ = try await send(.setMyCommands(commands, scope: scope, languageCode: languageCode))
    }

    public func deleteWebhook() async throws {
        _ = try await send(.deleteWebhook())
    }
}
