#if PostgreSQL
import Foundation
import Logging
import PostgresNIO
import PostgresStore
import Testing
import TestLogging
import TestSupport

/// Against the real server `scripts/test` starts: trusted on loopback, except for roles in
/// `password_login`, which must give their password.
@Suite(.capturingLogs, .enabled(if: TestPostgres.url != nil, TestPostgres.skipReason))
struct PostgresConnectionTests {
    let server = try! PostgresURL(TestPostgres.url ?? "postgres://unset@127.0.0.1")

    @Test func connectsAndAnswersAQuery() async throws {
        let connection = try await server.connect(logger: LogCapture().logger())
        let rows = try await connection.query("SELECT 1 AS one", logger: LogCapture().logger())
        var answers: [Int] = []
        for try await one in rows.decode(Int.self) { answers.append(one) }
        try await connection.close()
        #expect(answers == [1])
    }

    @Test func aWrongPasswordIsRefusedClearlyAndNeverShown() async throws {
        let role = try await PasswordRole.create(on: server, password: "right-p@ss:w/ord")
        let capture = LogCapture()
        var url = server
        (url.user, url.password) = (role.name, "hunter2-wrong-secret")
        let error = try await #require(throws: PostgresConnectionError.self) { try await url.connect(logger: capture.logger()) }
        try await role.drop()
        #expect(error.sqlState == "28P01")
        #expect(error.description.contains("password authentication failed"))
        #expect(error.description.contains("127.0.0.1:\(server.port) as \(role.name)"))
        #expect(!error.description.contains("hunter2"))
        #expect(!capture.text.contains("hunter2"))
    }

    /// The password is percent-decoded before it is sent: a password with @ : / gets in.
    @Test func theRightPasswordFromAnEncodedURLGetsIn() async throws {
        let role = try await PasswordRole.create(on: server, password: "right-p@ss:w/ord")
        let capture = LogCapture()
        let url = try PostgresURL("postgres://\(role.name):right-p%40ss%3Aw%2Ford@127.0.0.1:\(server.port)/postgres?sslmode=disable")
        let connection = try await url.connect(logger: capture.logger())
        try await connection.close()
        try await role.drop()
        #expect(!capture.text.contains("right-p@ss"))
    }

    @Test func aPortWithoutAServerIsAClearError() async throws {
        var url = server
        url.port = try FreePort.next()
        url.password = "hunter2-secret"
        let error = try await #require(throws: PostgresConnectionError.self) { try await url.connect(logger: LogCapture().logger()) }
        #expect(error.description.hasPrefix("cannot connect to PostgreSQL at 127.0.0.1:\(url.port) as \(url.user): "))
        #expect(error.description.lowercased().contains("refused"))
        #expect(!error.description.contains("hunter2"))
    }

    /// The test server has no TLS: sslmode=require must refuse it rather than go on unencrypted.
    @Test func sslModeRequireRefusesAServerWithoutTLS() async throws {
        var url = server
        url.sslMode = .require
        let error = try await #require(throws: PostgresConnectionError.self) { try await url.connect(logger: LogCapture().logger()) }
        #expect(error.description.contains("offers no TLS, and sslmode=require requires it"))
    }

    @Test func sslModePreferFallsBackToPlainOnLoopback() async throws {
        var url = server
        url.sslMode = .prefer
        let connection = try await url.connect(logger: LogCapture().logger())
        try await connection.close()
    }
}
#endif
