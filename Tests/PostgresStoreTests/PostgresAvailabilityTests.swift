import Testing
import TestLogging

/// Outside CI, the PostgreSQL tests skip (with a reason) when no server was given. In CI that
/// would pass silently, so this fails instead.
@Suite(.capturingLogs)
struct PostgresAvailabilityTests {
    @Test(.enabled(if: TestPostgres.isCI, "only CI must have PostgreSQL"))
    func continuousIntegrationRunsThePostgresTests() {
        #expect(TestPostgres.isBuilt, "CI built without the PostgreSQL trait: run the tests with scripts/test")
        #expect(TestPostgres.url != nil, "CI has no \(TestPostgres.variable): run the tests with scripts/test")
    }

    #if !PostgreSQL
    /// Without the trait the connection tests are not even compiled: this says so in the run.
    @Test(.disabled("built without the PostgreSQL trait: scripts/test builds with it and runs the PostgreSQL tests"))
    func postgresTestsNeedThePostgreSQLTrait() {}
    #endif
}
