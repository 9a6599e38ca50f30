import Foundation
import Testing
@testable import Throwback

#if PostgreSQL
import Logging
import PostgresNIO
import PostgresStore
import Synchronization
#endif

/// The SQL engines the store's tests run against: a test that takes one runs once for each.
/// PostgreSQL is among them when the tests were given a server (`scripts/test` starts one);
/// without one they run on SQLite alone, and `PostgresAvailabilityTests` says why (in CI, fails).
enum TestEngine: String, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    static var allCases: [TestEngine] {
        postgresURL == nil ? [.sqlite] : [.sqlite, .postgres]
    }

    var testDescription: String { rawValue }

    /// A new, empty store on this engine, migrated to the current schema.
    func makeStore() async throws -> BotStore {
        switch self {
        case .sqlite: return try BotStore.inMemory()
        case .postgres:
            #if PostgreSQL
            return try await BotStore.postgres(url: Self.freshDatabase(), logger: Logger(label: "test.postgres"))
            #else
            throw StoreError.unsupported("PostgreSQL (built without the trait)")
            #endif
        }
    }

    /// The server `scripts/test` started, when this build can use it.
    static let postgresURL: String? = {
        #if PostgreSQL
        ProcessInfo.processInfo.environment["VINYLOGUE_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
        #else
        nil
        #endif
    }()

    #if PostgreSQL
    private static let databases = Atomic<Int>(0)

    /// A database of its own for one test, created on the test server: tests run in parallel,
    /// and each must see only its own rows. The server and all of them go when the run ends.
    static func freshDatabase() async throws -> PostgresURL {
        var url = try PostgresURL(postgresURL ?? "")
        let name = "store_\(ProcessInfo.processInfo.processIdentifier)_\(databases.add(1, ordering: .relaxed).newValue)"
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
        return url
    }
    #endif
}
