import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `HTTPTransport` backed by `URLSession` (libcurl on Linux).
public struct URLSessionTransport: HTTPTransport {
    private let session: URLSession

    /// Uses `session`, or a session of its own. A session of its own matters: a long poll
    /// holds a connection open, and sessions cap connections per host (six for `.shared`).
    public init(session: URLSession? = nil, maxConnectionsPerHost: Int = 16) {
        if let session {
            self.session = session
        } else {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpMaximumConnectionsPerHost = maxConnectionsPerHost
            // Each request sets its own timeout; this only must not undercut a long poll.
            configuration.timeoutIntervalForRequest = 3600
            self.session = URLSession(configuration: configuration)
        }
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try Task.checkCancellation()
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        urlRequest.timeoutInterval = request.timeout.seconds
        for (name, value) in request.headers {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        do {
            let (data, response) = try await session.data(for: urlRequest)
            guard let http = response as? HTTPURLResponse else {
                throw TransportError("the response was not HTTP")
            }
            return HTTPResponse(status: http.statusCode, body: data)
        } catch let error as TransportError {
            throw error
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw Self.transportError(error)
        }
    }

    /// Describes a URLSession failure by its code only: its own description may quote the URL.
    static func transportError(_ error: any Error) -> TransportError {
        let nsError = error as NSError
        guard nsError.domain == NSURLErrorDomain else { return TransportError("network error") }
        let neverSent = { (text: String) in TransportError(text, requestMayHaveBeenSent: false) }
        switch nsError.code {
        case NSURLErrorTimedOut: return TransportError("request timed out")
        case NSURLErrorNetworkConnectionLost: return TransportError("connection lost")
        case NSURLErrorCancelled: return TransportError("request cancelled")
        case NSURLErrorCannotConnectToHost: return neverSent("could not connect to host")
        case NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed: return neverSent("host not found")
        case NSURLErrorNotConnectedToInternet: return neverSent("not connected to the internet")
        case NSURLErrorSecureConnectionFailed, NSURLErrorServerCertificateUntrusted: return neverSent("TLS handshake failed")
        default: return TransportError("network error \(nsError.code)")
        }
    }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    public var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
