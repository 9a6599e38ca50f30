import Foundation
import Testing

/// The PostgreSQL server the tests may use: `scripts/test` starts one and names it here.
enum TestPostgres {
    static let variable = "VINYLOGUE_TEST_POSTGRES_URL"
    static let url = ProcessInfo.processInfo.environment[variable].flatMap { $0.isEmpty ? nil : $0 }
    /// CI must run every PostgreSQL test: there a missing server is a failure, not a skip.
    static let isCI = ProcessInfo.processInfo.environment["CI"].map { !$0.isEmpty } ?? false
    #if PostgreSQL
    static let isBuilt = true
    #else
    static let isBuilt = false
    #endif
    /// Why the PostgreSQL tests are skipped, shown beside each skipped test.
    static let skipReason: Comment = "no PostgreSQL: run the tests with scripts/test, which starts one and sets \(variable)"
}
