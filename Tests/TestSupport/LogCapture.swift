import Foundation
import Logging
import Synchronization

/// Collects every log line made through its loggers, so tests can search them (for secrets).
public final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    public init() {}

    /// A logger at trace level that writes into this capture.
    public func logger(_ label: String = "test") -> Logger {
        Logger(label: label) { label in self.handler(label) }
    }

    /// A handler at trace level that writes into this capture, to wrap in another handler.
    public func handler(_ label: String = "test") -> any LogHandler {
        CapturingHandler(label: label, capture: self, echo: Self.echo)
    }

    /// Everything logged so far, one string per line, metadata included.
    public var text: String {
        lines.withLock { $0.joined(separator: "\n") }
    }

    public var allLines: [String] {
        lines.withLock { $0 }
    }

    fileprivate func append(_ line: String, keeping limit: Int? = nil) {
        lines.withLock { lines in
            lines.append(line)
            if let limit, lines.count > limit { lines.removeFirst(lines.count - limit) }
        }
    }

    /// Where loggers made with the default factory write during tests. Only the latest
    /// lines are kept.
    public static let process = LogCapture()

    /// `TEST_LOGS=1` copies every captured line to stderr, for a test that misbehaves.
    static let echo = ProcessInfo.processInfo.environment["TEST_LOGS"] == "1"

    private static let processLogs: Void = {
        LoggingSystem.bootstrap { label in
            var handler = CapturingHandler(label: label, capture: process, echo: echo, keep: 2_000)
            handler.logLevel = .info
            return handler
        }
    }()

    /// Routes every default logger of the process into `process`; the first call wins.
    public static func captureProcessLogs() {
        _ = processLogs
    }
}

private struct CapturingHandler: LogHandler {
    let label: String
    let capture: LogCapture
    var echo = false
    var keep: Int?
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let meta = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let line = "\(event.level) \(label): \(event.message) \(meta)"
        if echo { FileHandle.standardError.write(Data((line + "\n").utf8)) }
        capture.append(line, keeping: keep)
    }
}
