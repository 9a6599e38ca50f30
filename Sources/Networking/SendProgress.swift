import Synchronization

/// How far one request got towards the server: for a caller that must know, once the request
/// failed without an answer (a cancellation above all), whether its bytes may have left.
///
/// The caller binds one to `current` around its call. The API client marks it handed over
/// right before it gives the request to the transport, and a transport that knows better
/// marks it waiting (queued, connecting) and then sending, at libcurl's
/// `CURLOPT_PREREQFUNCTION`. A transport that marks nothing leaves it handed over, which
/// counts as possibly sent: the safe answer. Each request starts over at handed over.
public final class SendProgress: Sendable {
    /// The request the current task sends, if its caller asked to know.
    @TaskLocal public static var current: SendProgress?

    private enum Stage: UInt8 {
        case notStarted, handedOver, waiting, sending
    }

    private let stage = Atomic<UInt8>(Stage.notStarted.rawValue)

    public init() {}

    /// No byte of the request can have left: it never reached a transport, or its transport
    /// still held it back.
    public var certainlyNotSent: Bool {
        let stage = Stage(rawValue: stage.load(ordering: .acquiring))
        return stage == .notStarted || stage == .waiting
    }

    /// The API client gives the request to its transport now.
    public func handedOver() {
        stage.store(Stage.handedOver.rawValue, ordering: .releasing)
    }

    /// The transport holds the request back: queued, or waiting for a connection.
    public func waiting() {
        stage.store(Stage.waiting.rawValue, ordering: .releasing)
    }

    /// The request's bytes are about to leave; from here on it may have reached the server.
    public func sending() {
        stage.store(Stage.sending.rawValue, ordering: .releasing)
    }
}
