#if PostgreSQL
import Foundation
import PostgresNIO
import PostgresStore
import TestSupport

/// A login role of its own for one test, in `password_login`, which `scripts/test`'s server
/// makes give its password; the tests' own user is trusted.
struct PasswordRole {
    let name: String
    let server: PostgresURL

    static func create(on server: PostgresURL, password: String) async throws -> PasswordRole {
        let name = "password_test_\(UUID().uuidString.prefix(8).lowercased())"
        let quoted = password.replacingOccurrences(of: "'", with: "''")
        try await run(on: server, [
            "DO $$ BEGIN CREATE ROLE password_login NOLOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$",
            "CREATE ROLE \(name) LOGIN PASSWORD '\(quoted)' IN ROLE password_login",
        ])
        return PasswordRole(name: name, server: server)
    }

    func drop() async throws {
        try await Self.run(on: server, ["DROP ROLE \(name)"])
    }

    private static func run(on server: PostgresURL, _ statements: [String]) async throws {
        let logger = LogCapture().logger()
        let connection = try await server.connect(logger: logger)
        for statement in statements {
            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
        try await connection.close()
    }
}
#endif
