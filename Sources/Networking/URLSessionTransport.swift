import Foundation
import Synchronization
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
        let (data, response) = try await perform(urlRequest)
        guard let http = response as? HTTPURLResponse else {
            throw TransportError("the response was not HTTP")
        }
        return HTTPResponse(status: http.statusCode, body: data)
    }

    /// Runs a data task, cancelling it when the calling task is cancelled.
    ///
    /// This does not use `URLSession.data(for:)`: on Linux its cancellation handler cancels
    /// the task synchronously on the session's queue while the Swift task's status is locked,
    /// and that deadlocks against a response completing at the same moment (seen in this
    /// project's tests). Here the cancellation handler only schedules the cancel.
    private func perform(_ request: URLRequest) async throws -> (Data, URLResponse) {
        let handle = DataTaskHandle()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, URLResponse), any Error>) in
                let task = session.dataTask(with: request) { data, response, error in
                    if let response, error == nil {
                        continuation.resume(returning: (data ?? Data(), response))
                    } else if handle.isCancelled {
                        continuation.resume(throwing: CancellationError())
                    } else {
                        continuation.resume(throwing: Self.transportError(error ?? URLError(.badServerResponse)))
                    }
                }
                handle.start(task)
            }
        } onCancel: {
            handle.cancel()
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

/// The data task of one request, and whether its Swift task was cancelled. Cancellation
/// may come before the data task exists, so both sides check the flag under the lock.
private final class DataTaskHandle: Sendable {
    private let state = Mutex<(task: URLSessionDataTask?, cancelled: Bool)>((nil, false))

    var isCancelled: Bool {
        state.withLock { $0.cancelled }
    }

    func start(_ task: URLSessionDataTask) {
        let cancelled = state.withLock { state in
            state.task = task
            return state.cancelled
        }
        // A task cancelled before it runs may never call its completion handler; run it, then cancel.
        task.resume()
        if cancelled { DispatchQueue.global().async { task.cancel() } }
    }

    func cancel() {
        let task = state.withLock { state in
            state.cancelled = true
            return state.task
        }
        // Never cancel inline: the caller holds the Swift task's status lock (see `perform`).
        if let task { DispatchQueue.global().async { task.cancel() } }
    }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    public var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
