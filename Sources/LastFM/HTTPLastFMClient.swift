import Foundation
import Logging
import Networking

/// The Last.fm client that talks HTTP: it builds URLs, maps errors and reads answers.
public struct HTTPLastFMClient: LastFMClient {
    /// Last.fm's own API root.
    public static let defaultBaseURL = URL(string: "https://ws.audioscrobbler.com/2.0/")!

    private let baseURL: URL
    private let apiKey: Secret
    private let service: ListeningService
    private let logger: Logger

    /// - Parameters:
    ///   - baseURL: `LASTFM_API_URL`; any Last.fm-compatible root, such as Libre.fm's.
    ///   - apiKey: `LASTFM_API_KEY`. It is sent in the query and never logged.
    ///   - service: the service's name in its errors and log lines, so that Libre.fm's are not read as Last.fm's.
    public init(
        transport: any HTTPTransport, baseURL: URL = defaultBaseURL, apiKey: Secret, service: String = "Last.fm",
        logger: Logger = Logger(label: "lastfm")
    ) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.service = ListeningService(name: service, transport: transport, secrets: [apiKey], logger: logger)
        self.logger = logger
    }

    public func send<Response>(_ call: LastFMCall<Response>) async throws -> Response {
        let request = HTTPRequest(url: url(for: call), headers: ["User-Agent": "vinylogue-bot"], timeout: .seconds(20))
        logger.debug("\(service.name) request", metadata: ["method": "\(call.method)", "user": "\(call.user ?? "-")"])
        return try await service.ask(request, method: call.method) { [service] in try Self.interpret($0, for: call, service: service.name) }
    }

    func url(for call: LastFMCall<some Any>) -> URL {
        var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)!
        var items = components.queryItems ?? []
        items.append(URLQueryItem(name: "method", value: call.method))
        items += call.parameters.map { URLQueryItem(name: $0.name, value: $0.value) }
        items.append(URLQueryItem(name: "api_key", value: apiKey.reveal()))
        items.append(URLQueryItem(name: "format", value: "json"))
        components.queryItems = items
        // URLComponents leaves `+` alone, but Last.fm reads it as a space.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.url!
    }

    /// Turns a status and body into a value or a typed error. Error JSON wins over the status,
    /// because Last.fm sends it with 200 as often as with 4xx or 5xx.
    static func interpret<Response>(_ response: HTTPResponse, for call: LastFMCall<Response>, service: String) throws -> Response {
        // Read once, for the error and for the answer.
        let body = Result { () throws(JSONNode.Malformed) in try JSONNode(answer: response.body) }
        if let error = try? ErrorBody(json: body.get()) {
            if let answer = call.answerForError?(error.code) { return answer }
            throw ListeningError(service, reason(code: error.code, message: error.message, user: call.user))
        }
        switch response.status {
        case 200..<300:
            do {
                return try call.read(body.get())
            } catch {
                throw ListeningError(service, .undecodable("\(call.method): \(error)"))
            }
        case 500...:
            throw ListeningError(service, .temporarilyUnavailable("HTTP \(response.status)"))
        default:
            throw ListeningError(service, .rejected(code: response.status, message: "HTTP \(response.status)"))
        }
    }

    /// What a Last.fm error code means.
    ///
    /// - Parameter user: the `user` parameter of the request, for errors 6 and 17.
    static func reason(code: Int, message: String, user: String?) -> ListeningError.Reason {
        switch code {
        case 6 where user != nil: .userNotFound(user ?? "")
        case 17 where user != nil: .privateProfile(user ?? "")
        case 10, 26: .credentialsRefused
        case 29: .rateLimited(retryAfter: nil)
        case 8, 11, 16: .temporarilyUnavailable("error \(code): \(message)")
        default: .rejected(code: code, message: message)
        }
    }
}
