import CCurl
import Foundation
import Synchronization

/// A request on its way to the curl thread, with the continuation of its `send`.
struct CurlSubmission: Sendable {
    var id: UInt64
    var request: HTTPRequest
    var continuation: CheckedContinuation<HTTPResponse, any Error>
    /// The caller's `SendProgress.current`, told when the request's bytes are about to leave.
    var progress: SendProgress?
}

/// How other threads wake the curl thread: the write end of a pipe it polls. Writing a byte
/// is safe from any thread; the curl thread unpublishes the handle under the inbox lock
/// before it closes the pipe.
struct CurlWakeHandle: Sendable {
    let writeEnd: Int32
}

/// What callers leave for the curl thread. Always accessed under `CurlDriver.inbox`'s lock.
struct CurlInbox {
    var wakeHandle: CurlWakeHandle?
    var submissions: [CurlSubmission] = []
    var cancellations: [UInt64] = []
    /// Tasks that prefer the curl thread as their executor, ready to run.
    var jobs: [UnownedJob] = []
    /// The thread waits in `poll`: what is queued now needs a wakeup. While it
    /// works, it looks at the inbox again before it waits, so no wakeup (no system call) is needed.
    var sleeping = false
    /// A wakeup was sent since the thread last emptied the inbox, so another one is useless.
    var wakeupPending = false
    var isShuttingDown = false
    /// Set when libcurl could not start; every request then fails with it.
    var failure: TransportError?

    var isEmpty: Bool { submissions.isEmpty && cancellations.isEmpty && jobs.isEmpty }

    mutating func wake() {
        guard sleeping, !wakeupPending, let wakeHandle else { return }
        wakeupPending = true
        var byte: UInt8 = 1
        // The pipe is non-blocking: a full pipe has a wakeup in it already.
        _ = write(wakeHandle.writeEnd, &byte, 1)
    }
}

/// The part of a `CurlTransport` shared between calling tasks and its curl thread.
///
/// Callers only append to the inbox and wake the thread; the thread owns every curl handle
/// (see `CurlLoop`). A cancellation is a note in the same inbox, queued behind the
/// submission it cancels, so the thread always sees a request before its cancellation.
///
/// The thread is also a task executor: tasks that prefer it run between its transfers, so a
/// request such a task sends, and the answer it reads, never pass to another thread. Jobs
/// enqueued once the thread has stopped run on the global executor instead.
final class CurlDriver: TaskExecutor, Sendable {
    let inbox = Mutex(CurlInbox())
    private let nextID = Atomic<UInt64>(0)

    /// Set up once per process, before the first handle; curl_global_init is not safe to
    /// race with itself, and a Swift global is initialised exactly once.
    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    init(maxConnectionsPerHost: Int) {
        let initialised = Self.globalInit == CURLE_OK
        if !initialised {
            inbox.withLock { $0.failure = TransportError("libcurl could not be initialised", requestMayHaveBeenSent: false) }
            return
        }
        let thread = Thread { [self] in
            CurlLoop.run(driver: self, maxConnectionsPerHost: maxConnectionsPerHost)
        }
        thread.name = "CurlTransport"
        thread.start()
    }

    func makeID() -> UInt64 {
        nextID.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// Queues a request for the curl thread. Call it from the task that sends: it checks
    /// that task's cancellation under the lock, which orders it against `cancel`.
    func submit(_ submission: CurlSubmission) {
        let rejection: (any Error)? = inbox.withLock { inbox in
            // Cancelled already: `cancel` may have run before this submission was queued,
            // and the thread would then have found nothing to cancel.
            if Task.isCancelled { return CancellationError() }
            if let failure = inbox.failure { return failure }
            if inbox.isShuttingDown { return TransportError("transport shut down", requestMayHaveBeenSent: false) }
            inbox.submissions.append(submission)
            inbox.wake()
            return nil
        }
        if let rejection {
            submission.continuation.resume(throwing: rejection)
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let accepted = inbox.withLock { inbox in
            guard !inbox.isShuttingDown, inbox.failure == nil else { return false }
            inbox.jobs.append(job)
            inbox.wake()
            return true
        }
        if !accepted { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
    }

    /// Asks the curl thread to drop a request. Never blocks and never touches a transfer.
    func cancel(_ id: UInt64) {
        inbox.withLock { inbox in
            guard !inbox.isShuttingDown else { return }
            inbox.cancellations.append(id)
            inbox.wake()
        }
    }

    func shutDown() {
        inbox.withLock { inbox in
            inbox.isShuttingDown = true
            inbox.wake()
        }
    }
}

// The curl thread's side of the inbox, used only by `CurlLoop`.
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
