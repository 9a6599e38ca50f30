import Foundation
import Logging
import Networking

/// The Bot API client that talks HTTP: it posts JSON to `{base}/bot{token}/{method}` (a
/// `multipart/form-data` form when the call uploads files) and maps the `{"ok": false, …}`
/// answers to `TelegramError`. The token is redacted from every log line and error it produces.
public struct HTTPTelegramClient: TelegramClient {
    public static let defaultBaseURL = URL(string: "https://api.telegram.org")!

    private let transport: any HTTPTransport
    /// `{base}/bot{token}/`, made once: every request only appends its method. A `Secret`,
    /// since it holds the token.
    private let methodBase: Secret
    /// Each method's URL, parsed once: parsing one cost more than writing the request body.
    private let methodURLs = SharedBoundedCache<String, URL>(capacity: 64)
    private let logger: Logger
    private let redactor: SecretRedactor

    public init(transport: any HTTPTransport, baseURL: URL = defaultBaseURL, token: Secret, logger: Logger = Logger(label: "telegram")) {
        self.transport = transport
        self.methodBase = Secret(baseURL.appendingPathComponent("bot\(token.reveal())").absoluteString + "/")
        self.logger = logger
        self.redactor = SecretRedactor(secrets: [token])
    }

    private func methodURL(_ method: String) -> URL? {
        if let known = methodURLs.value(forKey: method) { return known }
        guard let url = URL(string: methodBase.reveal() + method) else { return nil }
        methodURLs.set(url, forKey: method)
        return url
    }

    public func send<Response>(_ request: TelegramRequest<Response>) async throws -> Response {
        guard let url = methodURL(request.method) else {
            throw TelegramError.badRequest("not a Bot API method: \(request.method.prefix(64))")
        }
        let body: Data
        let headers: [String: String]
        if request.attachments.isEmpty {
            body = request.parametersJSON
            headers = Self.jsonHeaders
        } else {
            let form = MultipartBody(parameters: request.parameters, files: request.attachments)
            body = form.data
            headers = ["Content-Type": form.contentType]
        }
        let http = HTTPRequest(method: "POST", url: url, headers: headers, body: body, timeout: request.timeout)
        try Task.checkCancellation()
        SendProgress.current?.handedOver()
        let response: HTTPResponse
        do {
            response = try await transport.send(http)
        } catch let error as TransportError {
            let text = redactor.redact(error.description)
            logger.warning("Telegram unreachable", metadata: ["method": "\(request.method)", "error": "\(text)"])
            throw TelegramError.transport(text, mayHaveBeenDelivered: error.requestMayHaveBeenSent)
        }
        do {
            return try Self.interpret(response, method: request.method, logger: logger)
        } catch let error as TelegramError {
            let text = redactor.redact(error.description)
            logger.log(
                level: error.verdict.isRefusal ? .info : .warning, "Telegram error",
                metadata: ["method": "\(request.method)", "error": "\(text)"]
            )
            throw Self.redacted(error, with: redactor)
        }
    }

    /// The headers of a JSON request: built once, not per request.
    private static let jsonHeaders = ["Content-Type": "application/json"]

    /// The longest flood wait the bot accepts; a larger `retry_after` is clamped to it.
    public static let maxRetryAfter = 3600

    /// A Bot API answer read: its result, or the error it stands for. Public for the load
    /// benchmark, which times it.
    public static func interpret<Response: JSONReadable>(_ response: HTTPResponse, method: String, logger: Logger? = nil) throws -> Response {
        guard let answer = try? JSONNode(parsing: [UInt8](response.body)), let ok = answer["ok"]?.bool else {
            if response.status >= 500 { throw TelegramError.server(status: response.status, description: "unreadable body") }
            if response.status == 401 { throw TelegramError.unauthorized }
            if response.status == 404 { throw TelegramError.notFound }
            throw TelegramError.undecodable("\(method): HTTP \(response.status)")
        }
        if ok {
            guard let result = answer["result"], !result.isNull, let value = try? Response(json: result) else {
                throw TelegramError.undecodable("\(method): result missing or malformed")
            }
            return value
        }
        let description = answer["description"]?.string ?? ""
        let parameters = answer["parameters"]
        // Any number, however large or fractional, still means "wait": read as a Double and
        // brought into Int's range, so that the clamp applies.
        if let seconds = parameters?["retry_after"]?.double {
            let whole = seconds >= Double(Int.max) ? Int.max : Int(max(seconds.rounded(.up), 0))
            if whole > maxRetryAfter {
                logger?.warning("Telegram asked for a flood wait longer than an hour; waiting an hour", metadata: [
                    "method": "\(method)", "retryAfter": "\(whole)",
                ])
            }
            throw TelegramError.retryAfter(seconds: min(max(whole, 1), maxRetryAfter))
        }
        if let chat = parameters?["migrate_to_chat_id"]?.int64 { throw TelegramError.chatMigrated(to: chat) }
        let code = answer["error_code"]?.int64.flatMap { Int(exactly: $0) } ?? response.status
        switch code {
        case 401: throw TelegramError.unauthorized
        // The Bot API answers 404 for a malformed token as well as for a wrong base URL.
        case 404: throw TelegramError.notFound
        case 403: throw TelegramError.forbidden(description)
        case 409: throw TelegramError.conflict(description)
        case 429: throw TelegramError.retryAfter(seconds: 1)
        case let code where code >= 500: throw TelegramError.server(status: code, description: description)
        default: throw TelegramError.badRequest(description)
        }
    }

    /// Telegram's own descriptions never quote the token, but a proxy's error page might.
    private static func redacted(_ error: TelegramError, with redactor: SecretRedactor) -> TelegramError {
        switch error {
        case .conflict(let text): .conflict(redactor.redact(text))
        case .forbidden(let text): .forbidden(redactor.redact(text))
        case .badRequest(let text): .badRequest(redactor.redact(text))
        case let .server(status, text): .server(status: status, description: redactor.redact(text))
        case .undecodable(let text): .undecodable(redactor.redact(text))
        default: error
        }
    }
}
