import Foundation
import Logging
import Networking

/// The ListenBrainz client that talks HTTP: it builds URLs, maps statuses to errors, reads the
/// rate-limit headers and reads listens.
public struct HTTPListenBrainzClient: ListenBrainzClient {
    /// ListenBrainz's own API root.
    public static let defaultBaseURL = URL(string: "https://api.listenbrainz.org/1/")!
    /// Who is asking, as ListenBrainz asks clients to say.
    static let userAgent = "vinylogue-bot (Telegram bot posting weekly listening throwbacks)"

    private let baseURL: URL
    private let token: Secret?
    private let service: ListeningService
    private let logger: Logger

    /// - Parameters:
    ///   - baseURL: `LISTENBRAINZ_API_URL`, with or without the `/1/` version segment.
    ///   - token: `LISTENBRAINZ_TOKEN`: optional; it raises the rate limit. Never logged.
    public init(transport: any HTTPTransport, baseURL: URL = defaultBaseURL, token: Secret? = nil, logger: Logger = Logger(label: "listenbrainz")) {
        self.baseURL = Self.versioned(baseURL)
        self.token = token
        self.service = ListeningService(name: Self.serviceName, transport: transport, secrets: token.map { [$0] } ?? [], logger: logger)
        self.logger = logger
    }

    public func listens(_ request: ListensRequest) async throws -> ListensPage {
        let http = HTTPRequest(
            url: url(for: request), headers: headers(), timeout: .seconds(20), responseHeaders: ListenBrainzRateLimit.headerNames
        )
        logger.debug("ListenBrainz request", metadata: [
            "user": "\(request.user)", "max_ts": "\(request.maxTimestamp.map(String.init) ?? "-")", "min_ts": "\(request.minTimestamp.map(String.init) ?? "-")",
        ])
        return try await service.ask(http, method: request.method) { try Self.interpret($0, for: request) }
    }

    /// `GET {base}validate-token` with the configured token: whose it is. Without a token,
    /// ListenBrainz answers that it needs one, which still shows that it is up.
    public func validateToken() async throws -> ListenBrainzTokenCheck {
        let http = HTTPRequest(
            url: baseURL.appendingPathComponent("validate-token"), headers: headers(), timeout: .seconds(20),
            responseHeaders: ListenBrainzRateLimit.headerNames
        )
        return try await service.ask(http, method: "validate-token") { [token] response in
            switch response.status {
            case 200..<300:
                guard let answer = try? TokenAnswer(json: JSONNode(answer: response.body)) else {
                    throw ListeningError(Self.serviceName, .undecodable("validate-token: not the expected JSON"))
                }
                return answer.valid ? .valid(user: answer.userName ?? "") : .invalid(message: answer.message ?? "")
            case 400 where token == nil:
                return .noToken
            default:
                throw Self.failure(response, user: nil)
            }
        }
    }

    /// Who is asking, and the token when there is one.
    private func headers() -> [String: String] {
        var headers = ["User-Agent": Self.userAgent]
        if let token { headers["Authorization"] = "Token \(token.reveal())" }
        return headers
    }

        /// `{base}/user/{user}/listens?count=…&max_ts=…&min_ts=…`, the name percent-encoded as one path segment.
    func url(for request: ListensRequest) -> URL {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/;?#%")
        let name = request.user.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
        var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)!
        components.percentEncodedPath += "user/\(name)/listens"
        var items = [URLQueryItem(name: "count", value: String(request.count))]
        if let max = request.maxTimestamp { items.append(URLQueryItem(name: "max_ts", value: String(max))) }
        if let min = request.minTimestamp { items.append(URLQueryItem(name: "min_ts", value: String(min))) }
        components.queryItems = items
        return components.url!
    }

    /// The root with its version segment and a trailing slash: `…/1/`.
    static func versioned(_ url: URL) -> URL {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false) ?? URLComponents()
        var path = components.percentEncodedPath
        if !path.hasSuffix("/") { path += "/" }
        if !path.hasSuffix("/1/") { path += "1/" }
        components.percentEncodedPath = path
        return components.url ?? defaultBaseURL
    }

    /// The service's name in its errors.
    static let serviceName = "ListenBrainz"

    /// Turns a status and body into a page or a typed error.
    static func interpret(_ response: HTTPResponse, for request: ListensRequest) throws -> ListensPage {
        guard (200..<300).contains(response.status) else { throw failure(response, user: request.user) }
        do {
            var page = try ListensPage.decode(response.body)
            page.rateLimit = ListenBrainzRateLimit(headers: response.headers)
            return page
        } catch {
            throw ListeningError(serviceName, .undecodable("listens: not the expected JSON"))
        }
    }

    /// The error a status other than 2xx stands for; a 404 is no such `user`, where one was asked for.
    private static func failure(_ response: HTTPResponse, user: String?) -> ListeningError {
        let reason: ListeningError.Reason = switch response.status {
        case 404 where user != nil: .userNotFound(user ?? "")
        case 429: .rateLimited(retryAfter: ListenBrainzRateLimit.wait(ListenBrainzRateLimit(headers: response.headers)?.resetIn))
        case 401, 403: .credentialsRefused
        case 500...: .temporarilyUnavailable("HTTP \(response.status)")
        default: .rejected(code: response.status, message: message(in: response.body))
        }
        return ListeningError(serviceName, reason)
    }

    /// The `error` text of an error body, shortened.
    private static func message(in body: Data) -> String {
        let answer = try? JSONNode(answer: body)
        let error = answer.flatMap { $0.isReadableObject ? try? $0.optional("error") { $0.string } : nil }
        return String((error ?? "").prefix(200))
    }
}

/// What `validate-token` answers: `valid` must be there; `message` and `user_name`, if there,
/// must be strings.
private struct TokenAnswer: JSONReadable {
    var valid: Bool
    var message: String?
    var userName: String?

    init(json: JSONNode) throws {
        guard json.isReadableObject else { throw JSONNode.Malformed(description: "expected an object") }
        valid = try json.required("valid", as: Bool.self)
        message = try json.optional("message") { $0.string }
        userName = try json.optional("user_name") { $0.string }
    }
}
