import CCurl
import Foundation

/// The curl thread: it owns the multi handle and every easy handle, and is the only thread
/// that runs transfers, so none of this needs a lock. Created on that thread, never shared.
///
/// It drives libcurl by events (`curl_multi_socket_action`): it waits on the sockets libcurl
/// names (`SocketEvents`), and on a pipe that other threads write to wake it, and tells
/// libcurl which socket is ready or that its timer is due. libcurl then touches only that
/// transfer, where `curl_multi_perform` would check every transfer's socket, one system call each.
final class CurlLoop {
    private let driver: CurlDriver
    private let multi: UnsafeMutableRawPointer
    /// The wake pipe: its read end is waited on with the sockets.
    private let wakeRead: Int32
    private let wakeWrite: Int32
    /// The sockets libcurl waits on, and the wake pipe.
    private let events: SocketEvents
    /// When libcurl next wants to be called without socket activity, in `uptimeNanoseconds`.
    private var timerDue: UInt64?
    private var ready: [SocketEvents.Ready] = []
    private var active: [UInt64: CurlTransfer] = [:]
    /// Easy handles kept for reuse, which saves setting one up per request.
    private var idle: [CurlTransfer] = []
    /// Swapped with the inbox's arrays, so that taking the inbox allocates nothing.
    private var submissions: [CurlSubmission] = []
    private var cancellations: [UInt64] = []
    private var jobs: [UnownedJob] = []
    private static let maxIdle = 32

    /// The body of the curl thread; returns when the transport shuts down.
    static func run(driver: CurlDriver, maxConnectionsPerHost: Int) {
        blockBrokenPipeSignals()
        guard let multi = curl_multi_init() else {
            driver.retireAndSettle(with: TransportError("libcurl could not be initialised", requestMayHaveBeenSent: false))
            return
        }
        // Beyond this, libcurl queues requests until a connection to the host is free.
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, maxConnectionsPerHost)
        // libcurl's own cache size follows the transfers under way (four per transfer): after
        // a burst, it would close the connections that the next burst opens again.
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, 4 * maxConnectionsPerHost)
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else {
            curl_multi_cleanup(multi)
            driver.retireAndSettle(with: TransportError("could not set up the transport's wake-up pipe", requestMayHaveBeenSent: false))
            return
        }
        for end in pipeEnds { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
        guard let events = SocketEvents(wakeFD: pipeEnds[0]) else {
            for end in pipeEnds { close(end) }
            curl_multi_cleanup(multi)
            driver.retireAndSettle(with: TransportError("could not set up the transport's event wait", requestMayHaveBeenSent: false))
            return
        }
        let loop = CurlLoop(driver: driver, multi: multi, wakeRead: pipeEnds[0], wakeWrite: pipeEnds[1], events: events)
        let context = Unmanaged.passUnretained(loop).toOpaque()
        _ = ccurl_multi_setopt_socket_function(multi, { _, socket, what, context, _ in
            guard let context else { return 0 }
            Unmanaged<CurlLoop>.fromOpaque(context).takeUnretainedValue().watch(socket, what)
            return 0
        }, context)
        _ = ccurl_multi_setopt_timer_function(multi, { _, milliseconds, context in
            guard let context else { return 0 }
            Unmanaged<CurlLoop>.fromOpaque(context).takeUnretainedValue().setTimer(milliseconds)
            return 0
        }, context)
        loop.run()
    }

    private init(driver: CurlDriver, multi: UnsafeMutableRawPointer, wakeRead: Int32, wakeWrite: Int32, events: SocketEvents) {
        self.driver = driver
        self.multi = multi
        self.wakeRead = wakeRead
        self.wakeWrite = wakeWrite
        self.events = events
    }

    /// libcurl's socket callback: what to wait on `socket` for, from now on.
    private func watch(_ socket: Int32, _ what: Int32) {
        switch what {
        case CURL_POLL_IN: events.watch(socket, readable: true, writable: false)
        case CURL_POLL_OUT: events.watch(socket, readable: false, writable: true)
        case CURL_POLL_INOUT: events.watch(socket, readable: true, writable: true)
        default: events.forget(socket)  // CURL_POLL_REMOVE
        }
    }

    /// libcurl's timer callback: -1 cancels the timer, 0 asks to be called at once.
    private func setTimer(_ milliseconds: Int) {
        timerDue = milliseconds < 0 ? nil : Self.now() + UInt64(milliseconds) * 1_000_000
    }

    private static func now() -> UInt64 {
        DispatchTime.now().uptimeNanoseconds
    }

    private func run() {
        driver.publish(CurlWakeHandle(writeEnd: wakeWrite))
        let executor = driver.asUnownedTaskExecutor()
        while !driver.take(&submissions, &cancellations, &jobs) {
            // Submissions first: a cancellation is always queued after its submission.
            for submission in submissions {
                start(submission)
            }
            submissions.removeAll(keepingCapacity: true)
            for id in cancellations {
                cancelTransfer(id)
            }
            cancellations.removeAll(keepingCapacity: true)
            // Tasks that prefer this thread; what they send starts when libcurl's timer (due at
            // once for a new transfer) runs below.
            for job in jobs {
                job.runSynchronously(on: executor)
            }
            jobs.removeAll(keepingCapacity: true)
            runTimerIfDue()
            // Waits only if nothing was queued meanwhile (a finished transfer's task, say).
            if driver.prepareToSleep() { waitForEvents() }
        }
        shutDown()
    }

    /// Tells libcurl its timer is due, if it is: new transfers start, timeouts fire.
    private func runTimerIfDue() {
        guard let due = timerDue, due <= Self.now() else { return }
        timerDue = nil
        var running: Int32 = 0
        curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running)
        finishCompletedTransfers()
    }

    /// Waits on the sockets libcurl waits on and the wake pipe until one is ready or libcurl's
    /// timer is due, and hands libcurl the ready sockets. The limit only guards against a lost
    /// wakeup, which the pipe rules out.
    private func waitForEvents() {
        var timeout: Int32 = 1000
        if let due = timerDue {
            let now = Self.now()
            timeout = due <= now ? 0 : Int32(min(1000, (due - now + 999_999) / 1_000_000))
        }
        ready.removeAll(keepingCapacity: true)
        let outcome = events.wait(timeout: timeout, into: &ready)
        // Awake from here on: what the transfers below queue for this thread (the tasks their
        // answers resume) is found before the next wait, without a wakeup through the pipe.
        driver.awake()
        if outcome.failed {
            if errno != EINTR { usleep(10_000) }  // never spin if waiting itself fails
            return
        }
        if outcome.woken {
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { drain in
                // A read that does not fill the buffer has emptied the pipe.
                while read(wakeRead, drain.baseAddress, drain.count) == drain.count {}
            }
        }
        var running: Int32 = 0
        for socket in ready {
            var flags: Int32 = 0
            if socket.readable { flags |= CURL_CSELECT_IN }
            if socket.writable { flags |= CURL_CSELECT_OUT }
            if socket.failed { flags |= CURL_CSELECT_ERR }
            curl_multi_socket_action(multi, socket.socket, flags, &running)
        }
        finishCompletedTransfers()
        runTimerIfDue()
    }

    private func start(_ submission: CurlSubmission) {
        if !cancellations.isEmpty, cancellations.contains(submission.id) {
            submission.continuation.resume(throwing: CancellationError())
            return
        }
        guard let transfer = idle.popLast() ?? CurlTransfer() else {
            submission.continuation.resume(throwing: TransportError("could not set up the request", requestMayHaveBeenSent: false))
            return
        }
        guard transfer.configure(for: submission.request) == CURLE_OK,
              curl_multi_add_handle(multi, transfer.easy) == CURLM_OK
        else {
            recycle(transfer)
            submission.continuation.resume(throwing: TransportError("could not set up the request", requestMayHaveBeenSent: false))
            return
        }
        transfer.id = submission.id
        transfer.continuation = submission.continuation
        transfer.progress = submission.progress
        // Without the callback, a started request may be sending at any moment.
        if !transfer.knowsWhenSending { submission.progress?.sending() }
        active[submission.id] = transfer
    }

    /// Drops a transfer whose task was cancelled. One that already finished is not found.
    private func cancelTransfer(_ id: UInt64) {
        guard let transfer = active.removeValue(forKey: id) else { return }
        curl_multi_remove_handle(multi, transfer.easy)
        finish(transfer, with: .failure(CancellationError()))
    }

    private func finishCompletedTransfers() {
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            // The message lives only until the handle is removed: read it first.
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = message.pointee.data.result
            curl_multi_remove_handle(multi, easy)
            guard let transfer = CurlTransfer.owning(easy), active.removeValue(forKey: transfer.id) != nil else { continue }
            finish(transfer, with: transfer.outcome(code))
        }
    }

    /// Resumes the transfer's `send` exactly once: the transfer leaves `active` first.
    private func finish(_ transfer: CurlTransfer, with outcome: Result<HTTPResponse, any Error>) {
        let continuation = transfer.continuation
        recycle(transfer)
        continuation?.resume(with: outcome)
    }

    private func recycle(_ transfer: CurlTransfer) {
        transfer.reset()
        if idle.count < Self.maxIdle {
            idle.append(transfer)
        }
    }

    private func shutDown() {
        let error = TransportError("transport shut down", requestMayHaveBeenSent: false)
        for submission in submissions {
            submission.continuation.resume(throwing: error)
        }
        submissions.removeAll()
        for transfer in active.values {
            curl_multi_remove_handle(multi, transfer.easy)
            finish(transfer, with: .failure(TransportError("transport shut down")))
        }
        active.removeAll()
        // Tasks still to run go on elsewhere; this thread ends.
        for job in jobs {
            globalConcurrentExecutor.enqueue(ExecutorJob(job))
        }
        // After this no caller can reach the multi handle any more.
        driver.retireAndSettle(with: error)
        idle.removeAll()
        curl_multi_cleanup(multi)
        // Unpublished by `retire`: no thread writes to the pipe any more.
        close(wakeRead)
        close(wakeWrite)
    }

    /// libcurl avoids SIGPIPE where it can, but with CURLOPT_NOSIGNAL it does not ignore
    /// the signal around its calls, and a TLS write to a closed socket may still raise it.
    /// Blocked on this thread, where all curl I/O happens, it cannot end the process.
    private static func blockBrokenPipeSignals() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }
}

extension CurlDriver {
    /// Makes the multi handle reachable for wakeups.
    func publish(_ handle: CurlWakeHandle) {
        inbox.withLock { $0.wakeHandle = handle }
    }

    /// Moves queued submissions, cancellations and jobs into the given (empty) arrays, whose
    /// capacity the inbox keeps. Returns whether the transport is shutting down.
    func take(_ submissions: inout [CurlSubmission], _ cancellations: inout [UInt64], _ jobs: inout [UnownedJob]) -> Bool {
        inbox.withLock { inbox in
            swap(&inbox.submissions, &submissions)
            swap(&inbox.cancellations, &cancellations)
            swap(&inbox.jobs, &jobs)
            inbox.sleeping = false
            inbox.wakeupPending = false
            return inbox.isShuttingDown
        }
    }

    /// The thread is back from its wait: what is queued from now on needs no wakeup.
    func awake() {
        inbox.withLock { $0.sleeping = false }
    }

    /// Whether the thread may wait: nothing is queued. From then on, what is queued wakes it.
    func prepareToSleep() -> Bool {
        inbox.withLock { inbox in
            inbox.sleeping = inbox.isEmpty && !inbox.isShuttingDown
            return inbox.sleeping
        }
    }

    /// Unpublishes the wake handle and makes every later request fail with `error`; the
    /// submissions still queued fail with it, and the jobs still queued go to the global
    /// executor.
    func retireAndSettle(with error: TransportError) {
        let (left, jobs) = inbox.withLock { inbox in
            inbox.wakeHandle = nil
            inbox.isShuttingDown = true
            if inbox.failure == nil { inbox.failure = error }
            inbox.cancellations.removeAll()
            defer { (inbox.submissions, inbox.jobs) = ([], []) }
            return (inbox.submissions, inbox.jobs)
        }
        for submission in left {
            submission.continuation.resume(throwing: error)
        }
        for job in jobs {
            globalConcurrentExecutor.enqueue(ExecutorJob(job))
        }
    }
}

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
