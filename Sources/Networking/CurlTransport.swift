import CCurl
import Foundation

/// `HTTPTransport` that drives libcurl's multi interface directly, for low CPU per request.
///
/// One dedicated thread owns a curl multi handle and runs every transfer; `send` hands its
/// request to that thread and suspends until the transfer ends. Connections stay open in
/// the multi handle's cache and are reused by later requests to the same host.
///
/// Behaviour, per `HTTPRequest`:
/// - `timeout` bounds the whole exchange; when it passes, `send` throws
///   `TransportError("request timed out")`.
/// - A body longer than `maxResponseBytes` aborts the transfer with
///   `TransportError("response too large")`.
/// - Redirects are followed only when `followRedirects` is set (at most 3, http and https).
/// - When the calling task is cancelled, the transfer is dropped (its connection closed)
///   and `send` throws `CancellationError`, also in the middle of a long poll. The caller's
///   `SendProgress` says whether the request's bytes may have left by then.
///
/// Error descriptions are fixed texts per libcurl error code and never contain the URL,
/// which for Telegram carries the bot token.
public final class CurlTransport: HTTPTransport {
    private let driver: CurlDriver

    /// Starts the transport's thread.
    ///
    /// - Parameter maxConnectionsPerHost: connections open at once to one host; requests
    ///   beyond it wait for a free connection. A long poll holds one for its whole duration.
    public init(maxConnectionsPerHost: Int = 32) {
        driver = CurlDriver(maxConnectionsPerHost: max(1, maxConnectionsPerHost))
    }

    /// The curl thread, which runs the tasks that prefer it between its transfers.
    public var executor: (any TaskExecutor)? { driver }

    // `send` keeps `self` alive, so no request is in flight here: the thread only tidies up.
    deinit {
        driver.shutDown()
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        // Held back until libcurl is about to send it, which it says (CURLOPT_PREREQFUNCTION).
        let progress = SendProgress.current
        progress?.waiting()
        try Task.checkCancellation()
        if let invalid = Self.invalidHeader(in: request) {
            throw invalid
        }
        let id = driver.makeID()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                driver.submit(CurlSubmission(id: id, request: request, continuation: continuation, progress: progress))
            }
        } onCancel: {
            // Only a note to the thread: this runs with the task's status locked, so it
            // must neither block nor touch curl's transfer state.
            driver.cancel(id)
        }
    }

    /// A header line break would let a value smuggle in headers of its own.
    private static func invalidHeader(in request: HTTPRequest) -> TransportError? {
        for (name, value) in request.headers {
            if name.isEmpty || hasLineBreak(name) || hasLineBreak(value) {
                return TransportError("invalid request header", requestMayHaveBeenSent: false)
            }
        }
        return nil
    }

    /// Looked at in the string's buffer: through `utf8`'s index, every request paid more for
    /// this than for building its headers.
    private static func hasLineBreak(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in bytes.contains { $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") } }
    }

    /// Describes a failed transfer by its code only: curl's own messages may quote the URL.
    static func transportError(for code: CURLcode) -> TransportError {
        let neverSent = { (text: String) in TransportError(text, requestMayHaveBeenSent: false) }
        switch code {
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            return neverSent("invalid URL")
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return neverSent("host not found")
        case CURLE_COULDNT_CONNECT:
            return neverSent("could not connect to host")
        case CURLE_SSL_CONNECT_ERROR:
            return neverSent("TLS handshake failed")
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS:
            return neverSent("TLS certificate not trusted")
        case CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CRL_BADFILE,
             CURLE_SSL_ISSUER_ERROR, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
             CURLE_SSL_ENGINE_INITFAILED:
            return neverSent("TLS setup failed")
        case CURLE_OPERATION_TIMEDOUT:
            return TransportError("request timed out")
        case CURLE_SEND_ERROR:
            return TransportError("connection lost while sending")
        case CURLE_RECV_ERROR:
            return TransportError("connection reset")
        case CURLE_GOT_NOTHING:
            return TransportError("connection closed without a response")
        case CURLE_PARTIAL_FILE:
            return TransportError("connection closed mid-response")
        case CURLE_WEIRD_SERVER_REPLY:
            return TransportError("malformed response")
        case CURLE_TOO_MANY_REDIRECTS:
            return TransportError("too many redirects")
        case CURLE_HTTP2, CURLE_HTTP2_STREAM:
            return TransportError("HTTP/2 error")
        case CURLE_BAD_CONTENT_ENCODING:
            return TransportError("could not decode the response")
        case CURLE_OUT_OF_MEMORY:
            return TransportError("out of memory")
        default:
            return TransportError("network error (curl code \(code.rawValue))")
        }
    }
}
