import Foundation
import Testing
import TestSupport
@testable import Throwback
#if PostgreSQL
import Logging
#endif

/// The SQL engines the store's tests run against: a test that takes one runs once for each.
/// PostgreSQL is among them when the tests were given a server (`scripts/test` starts one);
/// without one they run on SQLite alone, and `PostgresAvailabilityTests` says why (in CI, fails).
enum TestEngine: String, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    static var allCases: [TestEngine] {
        TestDatabases.hasPostgres ? [.sqlite, .postgres] : [.sqlite]
    }

    var testDescription: String { rawValue }

    /// A new, empty store on this engine, migrated to the current schema.
    func makeStore() async throws -> BotStore {
        switch self {
        case .sqlite: return try BotStore.inMemory()
        case .postgres:
            #if PostgreSQL
            return try await BotStore.postgres(url: TestDatabases.freshPostgres(), logger: Logger(label: "test.postgres"))
            #else
            throw StoreError.unsupported("PostgreSQL (built without the trait)")
            #endif
        }
    }
}
