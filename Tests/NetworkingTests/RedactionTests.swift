import Logging
import Networking
import Synchronization
import Testing
import TestLogging

@Suite(.capturingLogs) struct RedactionTests {
    private final class Lines: Sendable {
        let all = Mutex<[String]>([])
    }

    private struct Recorder: LogHandler {
        let lines: Lines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
            lines.all.withLock { $0.append("\(event.message) \(merged) \(event.error.map { "\($0)" } ?? "")") }
        }
    }

    @Test func aSecretIsRedactedWhereverItIsLogged() {
        let token = "123456:SECRET-token"
        let lines = Lines()
        var logger = Logger(label: "test") { _ in
            RedactingLogHandler(Recorder(lines: lines), redactor: SecretRedactor(secrets: [Secret(token)]))
        }
        logger.logLevel = .trace
        logger[metadataKey: "url"] = "https://api.telegram.org/bot\(token)/getMe"
        logger.trace("asked https://api.telegram.org/bot\(token)/getUpdates", metadata: ["request": "bot\(token)"])
        logger.error("failed", metadata: ["nested": ["list": ["\(token)"]]])
        let logged = lines.all.withLock { $0 }
        #expect(logged.count == 2)
        #expect(logged.allSatisfy { !$0.contains(token) })
        // The logger's own metadata still reaches every line, redacted.
        #expect(logged.allSatisfy { $0.contains("api.telegram.org/bot") })
    }
}
