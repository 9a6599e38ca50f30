import CCurl
import Foundation

/// One easy handle and the state of the request it runs. Used only on the curl thread;
/// libcurl refers to it by an unretained pointer, so the loop keeps it alive while in use.
final class CurlTransfer {
    let easy: UnsafeMutableRawPointer
    var id: UInt64 = 0
    var continuation: CheckedContinuation<HTTPResponse, any Error>?
    /// Told when the request's bytes are about to leave, for a caller that asked.
    var progress: SendProgress?
    private var headers: UnsafeMutablePointer<curl_slist>?
    /// The request headers `headers` was built for, and whether with a body: the next request
    /// with the same (nearly every one, a JSON call) reuses the list.
    private var headersFor: (fields: [String: String], body: Bool)?
    private var body = Data()
    private var maxBytes = 0
    private var tooLarge = false
    private var wantedHeaders: [String] = []
    /// libcurl reached the moment before the request's bytes go out (CURLOPT_PREREQFUNCTION).
    /// Without that callback (libcurl before 7.80) every started request counts as possibly sent.
    private var reachedSending = false
    private(set) var knowsWhenSending = false
    /// The options every request shares are set (`configureHandle`).
    private var handleConfigured = false

    init?() {
        guard let easy = curl_easy_init() else { return nil }
        self.easy = easy
    }

    deinit {
        curl_slist_free_all(headers)
        curl_easy_cleanup(easy)
    }

    /// The transfer an easy handle belongs to, from the pointer `configureHandle` stored in it.
    static func owning(_ easy: UnsafeMutableRawPointer) -> CurlTransfer? {
        var context: UnsafeMutableRawPointer?
        guard ccurl_easy_getinfo_private(easy, &context) == CURLE_OK, let context else { return nil }
        return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    }

    /// Sets the options every request of this handle shares, once: `reset` leaves them set,
    /// which saves libcurl's full reset and a dozen options per request.
    private func configureHandle() -> CURLcode {
        let context = Unmanaged.passUnretained(self).toOpaque()
        var options = CurlOptions()
        options.check(ccurl_easy_allow_http_only(easy))
        // Without NOSIGNAL, libcurl uses SIGALRM for DNS timeouts, which is unsafe in threads.
        options.check(ccurl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1))
        options.check(ccurl_easy_setopt_long(easy, CURLOPT_TCP_NODELAY, 1))
        // libcurl allocates its receive buffer for every request and frees it after: at the
        // default 16 KiB that is a large allocation each time, which malloc serves slowly. A
        // Bot API answer fits in 1 KiB; a larger one just takes more reads.
        options.check(ccurl_easy_setopt_long(easy, CURLOPT_BUFFERSIZE, Self.receiveBufferSize))
        options.check(ccurl_easy_setopt_ptr(easy, CURLOPT_PRIVATE, context))
        options.check(ccurl_easy_setopt_ptr(easy, CURLOPT_WRITEDATA, context))
        options.check(ccurl_easy_setopt_write_function(easy) { data, size, count, context in
            guard let context else { return 0 }
            return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().receive(data, size * count)
        })
        knowsWhenSending = ccurl_easy_setopt_prereq(easy, { context, _, _, _, _ in
            if let context {
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                transfer.reachedSending = true
                transfer.progress?.sending()
            }
            return CURL_PREREQFUNC_OK
        }, context) == CURLE_OK
        return options.code
    }

    /// Sets the options of one request; the handle's own are set on first use.
    func configure(for request: HTTPRequest) -> CURLcode {
        if !handleConfigured {
            let code = configureHandle()
            guard code == CURLE_OK else { return code }
            handleConfigured = true
        }
        maxBytes = max(0, request.maxResponseBytes)
        wantedHeaders = request.responseHeaders
        // String options are copied by libcurl, so these temporaries may go.
        var options = CurlOptions()
        options.check(request.url.absoluteString.withCString { ccurl_easy_setopt_ptr(easy, CURLOPT_URL, $0) })
        options.check(ccurl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, Self.milliseconds(request.timeout)))

        let hasBody = request.body != nil || request.method == "POST"
        if hasBody {
            let bytes = request.body ?? Data()
            options.check(ccurl_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count)))
            if bytes.isEmpty {
                var none: UInt8 = 0  // libcurl wants a pointer even for zero bytes
                options.check(ccurl_easy_setopt_ptr(easy, CURLOPT_COPYPOSTFIELDS, &none))
            } else {
                options.check(bytes.withUnsafeBytes { ccurl_easy_setopt_ptr(easy, CURLOPT_COPYPOSTFIELDS, $0.baseAddress) })
            }
        }
        if request.method == "HEAD" {
            options.check(ccurl_easy_setopt_long(easy, CURLOPT_NOBODY, 1))
        } else if request.method != (hasBody ? "POST" : "GET") {
            options.check(request.method.withCString { ccurl_easy_setopt_ptr(easy, CURLOPT_CUSTOMREQUEST, $0) })
        }

        if headersFor.map({ $0.body != hasBody || $0.fields != request.headers }) ?? true {
            curl_slist_free_all(headers)
            headers = nil
            var complete = true
            for (name, value) in request.headers {
                // "Name:" would remove a header of libcurl's; "Name;" sends it empty.
                complete = appendHeader(value.isEmpty ? "\(name);" : "\(name): \(value)") && complete
            }
            // Otherwise libcurl holds back a large body for up to a second, awaiting "100 Continue".
            if hasBody { complete = appendHeader("Expect:") && complete }
            // A list that lost a line is not kept for the next request.
            headersFor = complete ? (request.headers, hasBody) : nil
        }
        if let headers {
            options.check(ccurl_easy_setopt_ptr(easy, CURLOPT_HTTPHEADER, headers))
        }

        if request.followRedirects {
            options.check(ccurl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 1))
            options.check(ccurl_easy_setopt_long(easy, CURLOPT_MAXREDIRS, 3))
        }
        return options.code
    }

    /// Takes back what `configure` set for one request, leaving the handle's own options.
    private func clearRequestOptions() -> CURLcode {
        var options = CurlOptions()
        options.check(ccurl_easy_setopt_ptr(easy, CURLOPT_HTTPHEADER, nil))
        // Frees libcurl's copy of the body, then makes the next request a GET.
        options.check(ccurl_easy_setopt_ptr(easy, CURLOPT_POSTFIELDS, nil))
        options.check(ccurl_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, -1))
        options.check(ccurl_easy_setopt_long(easy, CURLOPT_NOBODY, 0))
        options.check(ccurl_easy_setopt_ptr(easy, CURLOPT_CUSTOMREQUEST, nil))
        options.check(ccurl_easy_setopt_long(easy, CURLOPT_HTTPGET, 1))
        options.check(ccurl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0))
        return options.code
    }

    /// False if the line could not be added.
    private func appendHeader(_ line: String) -> Bool {
        // libcurl copies the line. On failure (out of memory) the header is missing, and
        // the server's answer tells; the list so far stays valid.
        guard let list = curl_slist_append(headers, line) else { return false }
        headers = list
        return true
    }

    /// The write callback: collects the body, or aborts the transfer (by returning less
    /// than it was given) once the body would exceed its limit.
    private func receive(_ data: UnsafeMutablePointer<CChar>?, _ count: Int) -> Int {
        guard count > 0, let data else { return 0 }
        if body.isEmpty {
            // Reserve the announced length once, instead of growing the buffer step by step.
            var length: curl_off_t = -1
            if ccurl_easy_getinfo_off_t(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length) == CURLE_OK, length > count {
                if length > maxBytes {
                    tooLarge = true
                    return 0
                }
                body.reserveCapacity(Int(length))
            }
        }
        if count > maxBytes - body.count {
            tooLarge = true
            return 0
        }
        body.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: count)
        return count
    }

    /// The response, or the error, of a finished transfer.
    func outcome(_ code: CURLcode) -> Result<HTTPResponse, any Error> {
        if tooLarge {
            return .failure(TransportError("response too large"))
        }
        guard code == CURLE_OK else {
            var error = CurlTransport.transportError(for: code)
            if !mayHaveSent { error.requestMayHaveBeenSent = false }
            return .failure(error)
        }
        var status = 0
        ccurl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        let response = HTTPResponse(status: status, body: body, headers: readHeaders())
        body = Data()  // the response now holds the only reference: no copy
        return .success(response)
    }

    /// The wanted header fields of the last response (after redirects), names lowercased.
    private func readHeaders() -> [String: String] {
        var found: [String: String] = [:]
        for name in wantedHeaders {
            var header: UnsafeMutablePointer<curl_header>?
            let code = name.withCString { curl_easy_header(easy, $0, 0, UInt32(CURLH_HEADER), -1, &header) }
            if code == CURLHE_OK, let value = header?.pointee.value {
                found[name.lowercased()] = String(cString: value)
            }
        }
        return found
    }

    /// Whether any byte of the request can have left: libcurl reached the moment before
    /// sending, and counts request bytes written (CURLINFO_REQUEST_SIZE).
    private var mayHaveSent: Bool {
        guard knowsWhenSending else { return true }
        var written = 0
        return reachedSending && (ccurl_easy_getinfo_long(easy, CURLINFO_REQUEST_SIZE, &written) != CURLE_OK || written > 0)
    }

    /// Forgets the request; the handle keeps its own options, and its connections stay cached.
    func reset() {
        // Should taking back an option fail, the handle starts over from libcurl's defaults.
        if clearRequestOptions() != CURLE_OK {
            curl_easy_reset(easy)
            handleConfigured = false
        }
        body = Data()
        tooLarge = false
        reachedSending = false
        continuation = nil
        progress = nil
        id = 0
    }

    /// libcurl's smallest receive buffer.
    static let receiveBufferSize = 1024

    /// CURLOPT_TIMEOUT_MS, rounded up; 0 would mean no timeout at all.
    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, seconds > 0 || attoseconds > 0 else { return 1 }
        let cap = Int64(Int32.max)  // about 24 days
        guard seconds < cap / 1000 else { return Int(cap) }
        let fraction = (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int(seconds * 1000 + fraction)
    }
}

/// The outcome of setting a series of options: the first failure, or CURLE_OK.
private struct CurlOptions {
    private(set) var code = CURLE_OK

    mutating func check(_ outcome: CURLcode) {
        if code == CURLE_OK { code = outcome }
    }
}
