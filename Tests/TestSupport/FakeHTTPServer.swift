import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// A request as a fake server saw it.
public struct FakeRequest: Sendable {
    public var method: String
    public var path: String
    public var query: [String: String]
    /// Header fields, names lowercased.
    public var headers: [String: String]
    public var body: Data

    /// The body as a JSON object, for APIs that post JSON.
    public var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
    }
}

/// What a fake server answers.
public struct FakeResponse: Sendable {
    public var status: Int
    public var body: Data
    public var contentType: String
    /// Further header fields, such as ListenBrainz's rate-limit headers.
    public var headers: [String: String]

    public init(status: Int = 200, body: Data, contentType: String = "application/json", headers: [String: String] = [:]) {
        self.status = status
        self.body = body
        self.contentType = contentType
        self.headers = headers
    }

    public static func json(_ text: String, status: Int = 200) -> FakeResponse {
        FakeResponse(status: status, body: Data(text.utf8))
    }

    public static func json(object: Any, status: Int = 200) -> FakeResponse {
        FakeResponse(status: status, body: (try? JSONSerialization.data(withJSONObject: object)) ?? Data())
    }
}

/// A real HTTP server on 127.0.0.1 at an ephemeral port, answering with a closure.
public final class FakeHTTPServer: Sendable {
    public let baseURL: URL
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(baseURL: URL, group: ServiceGroup, task: Task<Void, any Error>) {
        self.baseURL = baseURL
        self.group = group
        self.task = task
    }

    /// Starts the server and returns once it accepts connections.
    public static func start(
        handler: @escaping @Sendable (FakeRequest) async -> FakeResponse
    ) async throws -> FakeHTTPServer {
        let (ports, portSink) = AsyncStream<Int>.makeStream()
        let responder = CallbackResponder<BasicRequestContext> { request, _ in
            var request = request
            let buffer = try await request.collectBody(upTo: 16 << 20)
            let components = URLComponents(string: request.uri.description)
            let query = Dictionary(
                (components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { a, _ in a }
            )
            let headers = Dictionary(
                request.headers.map { ($0.name.canonicalName, $0.value) }, uniquingKeysWith: { a, _ in a }
            )
            let fake = FakeRequest(
                method: request.method.rawValue, path: request.uri.path, query: query, headers: headers,
                body: Data(buffer.readableBytesView)
            )
            let response = await handler(fake)
            var fields: HTTPFields = [.contentType: response.contentType]
            for (name, value) in response.headers {
                if let field = HTTPFields.Element.Name(name) { fields[field] = value }
            }
            return Response(
                status: .init(code: response.status),
                headers: fields,
                body: .init(byteBuffer: ByteBuffer(bytes: response.body))
            )
        }
        var logger = Logger(label: "fake-server")
        logger.logLevel = .critical
        let app = Application(
            responder: responder,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                portSink.yield(channel.localAddress?.port ?? 0)
                portSink.finish()
            },
            logger: logger
        )
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        let task = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            task.cancel()
            throw FakeServerError.didNotStart
        }
        return FakeHTTPServer(baseURL: URL(string: "http://127.0.0.1:\(port)")!, group: group, task: task)
    }

    /// Stops the server gracefully: cancelling it instead can drop a connection it has just
    /// accepted, which NIO treats as a programming error and traps on.
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = await task.result
    }
}

public enum FakeServerError: Error {
    case didNotStart
}
