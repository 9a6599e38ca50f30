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
