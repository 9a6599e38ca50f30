import Networking

/// Counts every Bot API request that reaches the network, by method and result, in
/// `vinylogue_telegram_requests_total`. Place it right above the HTTP client, so that each
/// retry counts as the request it is.
public struct InstrumentedTelegramClient<Base: TelegramClient>: TelegramClient {
    private let base: Base
    private let metrics: BotMetrics

    public init(base: Base, metrics: BotMetrics) {
        self.base = base
        self.metrics = metrics
    }

    public func send<Response>(_ request: TelegramRequest<Response>) async throws -> Response {
        do {
            let response = try await base.send(request)
            count(request.method, "ok")
            return response
        } catch let error as TelegramError {
            count(request.method, error.kind)
            throw error
        }
    }

    private func count(_ method: String, _ result: String) {
        metrics.increment("vinylogue_telegram_requests_total", [("method", method), ("result", result)])
    }
}

extension TelegramError {
    /// A short, stable name for metrics: `flood_wait` is a 429.
    public var kind: String {
        switch self {
        case .retryAfter: "flood_wait"
        case .chatMigrated: "chat_migrated"
        case .unauthorized: "unauthorized"
        case .notFound: "not_found"
        case .conflict: "conflict"
        case .forbidden: "forbidden"
        case .badRequest: "bad_request"
        case .server: "server_error"
        case .transport: "network_error"
        case .undecodable: "undecodable"
        }
    }
}

extension TelegramClient {
    /// Counts requests by method and result.
    public func instrumented(_ metrics: BotMetrics) -> InstrumentedTelegramClient<Self> {
        InstrumentedTelegramClient(base: self, metrics: metrics)
    }
}
