/// A client of one web API: its HTTP client at the bottom, and every adaptor stacked on it.
/// Each service's client protocol refines it (`LastFMClient`, `ListenBrainzClient`,
/// `TelegramClient`, and `HTTPTransport` for cover images), so that the adaptors, each written
/// once, stack on any of them, as teloxide's adaptors wrap any `Requester`.
public protocol ServiceClient: Sendable {}

/// One call to a web API, typed by its answer: what an adaptor needs of it, whatever the service.
public protocol APIRequest: Sendable {
    associatedtype Response: Sendable
    /// The API method, for logs and metrics: `user.getweeklychartlist`, `sendMessage`.
    var method: String { get }
    /// Whether the call may go again when it may have arrived: made twice, it does no more
    /// than once. True unless the request says otherwise.
    var isRepeatable: Bool { get }
    /// How long the call may spend waiting between attempts before it gives up (answering a
    /// button press must not wait out a long 429); nil: the retry policy alone decides.
    var patience: Duration? { get }
    /// How long the service asks to be left alone after this answer, when the answer says its
    /// budget is spent; nil for most.
    func holdOff(after response: Response) -> Duration?
}

extension APIRequest {
    public var isRepeatable: Bool { true }
    public var patience: Duration? { nil }
    public func holdOff(after response: Response) -> Duration? { nil }
}

/// An error a service's client throws, saying what became of the call.
public protocol ServiceFailure: Error {
    /// A short, stable name for metrics: `rate_limited`, `network_error`.
    var kind: String { get }
    /// What the service did with the call, and so whether it may go again.
    var verdict: SendVerdict { get }
}

/// Something done around every call of any service: retrying, pacing, breaking, counting.
public protocol CallAdaptor: Sendable {
    /// Makes `request`'s call, which `next` performs on the client below.
    func call<Request: APIRequest>(_ request: Request, next: () async throws -> Request.Response) async throws -> Request.Response
}

/// A service's client with an adaptor around each of its calls. It is a client of the same
/// service (each service's target says how its calls pass through), and concrete: a chain of
/// them is compiled for its service and requests, with no lookup at run time.
public struct Adapted<Base: ServiceClient, Adaptor: CallAdaptor>: ServiceClient {
    public let base: Base
    public let adaptor: Adaptor

    public init(base: Base, adaptor: Adaptor) {
        self.base = base
        self.adaptor = adaptor
    }
}

extension ServiceClient {
    /// This client with `adaptor` around each call.
    public func adapted<Adaptor: CallAdaptor>(by adaptor: Adaptor) -> Adapted<Self, Adaptor> {
        Adapted(base: self, adaptor: adaptor)
    }
}

extension HTTPRequest: APIRequest {
    public typealias Response = HTTPResponse
}

extension Adapted: HTTPTransport where Base: HTTPTransport {
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await adaptor.call(request) { try await base.send(request) }
    }

    public var executor: (any TaskExecutor)? { base.executor }
}

extension TransportError: ServiceFailure {
    public var kind: String { "network_error" }
    public var verdict: SendVerdict { requestMayHaveBeenSent ? .mayHaveBeenSent : .notSent(retryAfter: nil) }
}
