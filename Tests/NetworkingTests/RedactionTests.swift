import Logging
import Networking
import Testing
import TestLogging
import TestSupport

@Suite(.capturingLogs) struct RedactionTests {
    @Test func aSecretIsRedactedWhereverItIsLogged() {
        let token = "123456:SECRET-token"
        let capture = LogCapture()
        var logger = Logger(label: "test") { label in
            RedactingLogHandler(capture.handler(label), redactor: SecretRedactor(secrets: [Secret(token)]))
        }
        logger.logLevel = .trace
        logger[metadataKey: "url"] = "https://api.telegram.org/bot\(token)/getMe"
        logger.trace("asked https://api.telegram.org/bot\(token)/getUpdates", metadata: ["request": "bot\(token)"])
        logger.error("failed", metadata: ["nested": ["list": ["\(token)"]]])
        let logged = capture.allLines
        #expect(logged.count == 2)
        #expect(logged.allSatisfy { !$0.contains(token) })
        // The logger's own metadata still reaches every line, redacted.
        #expect(logged.allSatisfy { $0.contains("api.telegram.org/bot") })
    }
}
