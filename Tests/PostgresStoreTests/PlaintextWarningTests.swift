import Logging
import PostgresStore
import Testing
import TestLogging
import TestSupport

/// A server across a network reached without TLS would show the bot's data and password to
/// anyone on the path: the operator is warned in the log.
@Suite(.capturingLogs)
struct PlaintextWarningTests {
    @Test(arguments: ["disable", "allow", "prefer"])
    func aRemoteServerWithoutRequiredTLSIsWarnedOf(mode: String) throws {
        let capture = LogCapture()
        try PostgresURL("postgres://bot:hunter2-secret@db.example.org/vinyl?sslmode=\(mode)").warnIfPlaintext(capture.logger())
        #expect(capture.allLines.count == 1)
        #expect(capture.text.hasPrefix("warning"))
        #expect(capture.text.contains("db.example.org"))
        #expect(capture.text.contains("sslmode=verify-full"))
        #expect(!capture.text.contains("hunter2"))
    }

    @Test func aURLWithoutSSLModeIsWarnedOfToo() throws {
        let capture = LogCapture()
        try PostgresURL("postgres://bot@db.example.org/vinyl").warnIfPlaintext(capture.logger())
        #expect(capture.text.contains("sslmode=prefer"))
    }

    @Test(arguments: [
        "postgres://bot@db.example.org/vinyl?sslmode=require",
        "postgres://bot@db.example.org/vinyl?sslmode=verify-ca",
        "postgres://bot@db.example.org/vinyl?sslmode=verify-full",
        "postgres://bot@127.0.0.1/vinyl?sslmode=disable",
        "postgres://bot@localhost/vinyl",
    ])
    func encryptedOrLocalConnectionsAreNot(text: String) throws {
        let capture = LogCapture()
        try PostgresURL(text).warnIfPlaintext(capture.logger())
        #expect(capture.allLines.isEmpty)
    }
}
