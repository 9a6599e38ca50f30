import Foundation
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

    /// A token in a URL's query is percent-encoded (`:` as `%3A` or `%3a`), and a key inside
    /// JSON may have its `/` escaped (`\/`, `\u002F`): a library that logs either form must not
    /// leak the secret.
    @Test func aSecretIsRedactedInEveryFormItIsWrittenIn() throws {
        let token = "123456:SECRET-token"
        let key = "s3cr3t/with \"odd\" parts"
        let capture = LogCapture()
        let logger = Logger(label: "test") { label in
            RedactingLogHandler(capture.handler(label), redactor: SecretRedactor(secrets: [Secret(token), Secret(key)]))
        }
        let json = String(decoding: try JSONEncoder().encode(["key": key]), as: UTF8.self)
        logger.error("callback https://example.org/hook?token=123456%3ASECRET-token&again=123456%3aSECRET-token")
        logger.error("body \(json)", metadata: ["form": "k=s3cr3t%2Fwith+%22odd%22+parts", "escaped": "s3cr3t\\u002Fwith \\u0022odd\\u0022 parts"])
        let logged = capture.allLines.joined(separator: "\n")
        #expect(json.contains(#"s3cr3t\/with \"odd\" parts"#))
        for leaked in ["SECRET-token", "s3cr3t", "odd", "parts"] {
            #expect(!logged.contains(leaked), "\(leaked) leaked: \(logged)")
        }
        #expect(logged.contains("token=<redacted>&again=<redacted>"))
    }
}

/// A secret compared in constant time matches only itself.
@Suite struct SecretMatchTests {
    @Test func aSecretMatchesOnlyItself() {
        let secret = Secret("abc_DEF-123")
        #expect(secret.matches("abc_DEF-123"))
        #expect(!secret.matches("abc_DEF-124"))
        #expect(!secret.matches("abc_DEF-12"))
        #expect(!secret.matches("abc_DEF-1234"))
        #expect(!secret.matches(""))
        #expect(!Secret("").matches(""))
    }
}
