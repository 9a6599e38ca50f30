import Foundation

#if PostgreSQL
import Logging
import PostgresNIO
import PostgresStore
import Synchronization
#endif

/// The PostgreSQL server tests may use: `scripts/test` starts one and names it in
/// `VINYLOGUE_TEST_POSTGRES_URL`. Each test takes a database of its own on it.
public enum TestDatabases {
    /// The server's URL, when this build can use it (the `PostgreSQL` trait) and one was given.
    public static let postgresURL: String? = {
        #if PostgreSQL
        ProcessInfo.processInfo.environment["VINYLOGUE_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
        #else
        nil
        #endif
    }()

    public static var hasPostgres: Bool { postgresURL != nil }

    #if PostgreSQL
    private static let databases = Atomic<Int>(0)

    /// A new, empty database on the test server, for one test: tests run in parallel, and each
    /// must see only its own rows. The server, and every database on it, go when the run ends.
    public static func freshPostgres() async throws -> PostgresURL {
        try await freshPostgresDatabase().url
    }

    /// `freshPostgres`, and its URL as `DATABASE_URL` writes it, for a bot process to open.
    public static func freshPostgresDatabase() async throws -> (url: PostgresURL, text: String) {
        var url = try PostgresURL(postgresURL ?? "")
        let name = "test_\(ProcessInfo.processInfo.processIdentifier)_\(databases.add(1, ordering: .relaxed).newValue)"
        let logger = Logger(label: "test.postgres")
        let connection = try await url.connect(logger: logger)
        do {
            _ = try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
        url.database = name
        var text = URLComponents(string: postgresURL ?? "")
        text?.path = "/\(name)"
        return (url, text?.string ?? "")
    }
    #endif
}
