import Logging

/// How every listening service's HTTP client asks it one thing: a failure of the transport or
/// of the answer becomes the service's `ListeningError`, with the secrets taken out of what the
/// server said, and is logged as a warning when it says the service is unwell, at debug level
/// when the service only refused (a missing user is an answer, not an incident).
public struct ListeningService: Sendable {
    /// The service's name, for the person who reads an answer and for log lines.
    public let name: String
    private let transport: any HTTPTransport
    private let redactor: SecretRedactor
    private let logger: Logger

    public init(name: String, transport: any HTTPTransport, secrets: [Secret], logger: Logger) {
        self.name = name
        self.transport = transport
        self.redactor = SecretRedactor(secrets: secrets)
        self.logger = logger
    }

    /// Sends `request` and reads its response with `read`, which throws `ListeningError`s.
    public func ask<Answer>(_ request: HTTPRequest, method: String, read: (HTTPResponse) throws -> Answer) async throws -> Answer {
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch let error as TransportError {
            let text = redactor.redact(error.description)
            logger.warning("\(name) unreachable", metadata: ["method": "\(method)", "error": "\(text)"])
            throw ListeningError(name, .transport(text))
        }
        do {
            return try read(response)
        } catch let error as ListeningError {
            let error = error.redacted(with: redactor)
            logger.log(level: error.verdict.isRefusal ? .debug : .warning, "\(name) error", metadata: ["method": "\(method)", "error": "\(error)"])
            throw error
        }
    }
}
