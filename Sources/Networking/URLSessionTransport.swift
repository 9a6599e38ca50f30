import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `HTTPTransport` backed by `URLSession` (libcurl on Linux).
public struct URLSessionTransport: HTTPTransport {
    private let session: URLSession

    public init(session: URLSession = .shared) {
        self.session = session
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
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
            throw TransportError(Self.describe(error))
        }
    }

    /// Describes a URLSession failure by its code only: its own description may quote the URL.
    static func describe(_ error: any Error) -> String {
        let nsError = error as NSError
        guard nsError.domain == NSURLErrorDomain else { return "network error" }
        switch nsError.code {
        case NSURLErrorTimedOut: return "request timed out"
        case NSURLErrorCannotConnectToHost: return "could not connect to host"
        case NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed: return "host not found"
        case NSURLErrorNetworkConnectionLost: return "connection lost"
        case NSURLErrorNotConnectedToInternet: return "not connected to the internet"
        case NSURLErrorSecureConnectionFailed, NSURLErrorServerCertificateUntrusted:
            return "TLS handshake failed"
        case NSURLErrorCancelled: return "request cancelled"
        default: return "network error \(nsError.code)"
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
