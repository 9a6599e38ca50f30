import Foundation

/// One HTTP request, as the API clients describe it to a transport.
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: URL
    public var headers: [String: String]
    public var body: Data?
    /// How long the whole exchange may take before it fails as a transport error.
    public var timeout: Duration
    /// The largest response body accepted; a longer one fails as a transport error, so a
    /// misbehaving server cannot make the bot buffer without bound.
    public var maxResponseBytes: Int
    /// Whether to follow redirects (at most 3, http and https only). Off by default: the
    /// APIs never redirect, but cover image hosts may.
    public var followRedirects: Bool
    /// Response header fields to read, by name (ListenBrainz tells its rate limit in headers);
    /// the others are not kept.
    public var responseHeaders: [String]

    public init(
        method: String = "GET",
        url: URL,
        headers: [String: String] = [:],
        body: Data? = nil,
        timeout: Duration = .seconds(30),
        maxResponseBytes: Int = 16 << 20,
        followRedirects: Bool = false,
        responseHeaders: [String] = []
    ) {
        self.responseHeaders = responseHeaders
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
        self.followRedirects = followRedirects
    }
}

/// The status and body of an HTTP response, with the header fields the request asked for.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var body: Data
    /// The fields named in `HTTPRequest.responseHeaders` that the response had, names lowercased.
    public var headers: [String: String]

    public init(status: Int, body: Data, headers: [String: String] = [:]) {
        self.status = status
        self.body = body
        self.headers = headers
    }
}

/// The request failed before an HTTP response arrived: DNS, connect, TLS, timeout, reset.
///
/// The description never contains the request URL, because Telegram URLs carry the bot token.
public struct TransportError: Error, Sendable, CustomStringConvertible {
    public var description: String
    /// False only when the request certainly never reached the server (no connection,
    /// DNS, TLS), so that even a non-idempotent request can be retried safely.
    public var requestMayHaveBeenSent: Bool

    public init(_ description: String, requestMayHaveBeenSent: Bool = true) {
        self.description = description
        self.requestMayHaveBeenSent = requestMayHaveBeenSent
    }
}

/// The smallest port between the API clients and the network, so tests can inject faults.
///
/// Implementations throw `TransportError` for failures below HTTP and `CancellationError`
/// when the calling task is cancelled. Any HTTP status, 5xx included, is a response.
public protocol HTTPTransport: ServiceClient {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse

    /// Where this transport finishes its requests, if it runs tasks there too: a task that
    /// prefers it sends and reads its answers without passing between threads. Nil: no
    /// preference, the global executor.
    var executor: (any TaskExecutor)? { get }
}

extension HTTPTransport {
    public var executor: (any TaskExecutor)? { nil }
}
