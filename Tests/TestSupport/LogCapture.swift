import Logging
import Synchronization

/// Collects every log line made through its loggers, so tests can search them (for secrets).
public final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    public init() {}

    /// A logger at trace level that writes into this capture.
    public func logger(_ label: String = "test") -> Logger {
        Logger(label: label) { label in CapturingHandler(label: label, capture: self) }
    }

    /// Everything logged so far, one string per line, metadata included.
    public var text: String {
        lines.withLock { $0.joined(separator: "\n") }
    }

    public var allLines: [String] {
        lines.withLock { $0 }
    }

    fileprivate func append(_ line: String) {
        lines.withLock { $0.append(line) }
    }
}

private struct CapturingHandler: LogHandler {
    let label: String
    let capture: LogCapture
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let meta = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        capture.append("\(event.level) \(label): \(event.message) \(meta)")
    }
}
