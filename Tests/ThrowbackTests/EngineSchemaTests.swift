import Testing
import TestLogging
@testable import Throwback

/// One schema, two engines: every migration is made in both, so that the store's SQL finds
/// the same tables and columns whichever runs it.
@Suite(.capturingLogs) struct EngineSchemaTests {
    @Test(.enabled(if: TestEngine.allCases.contains(.postgres), "needs PostgreSQL: run the tests with scripts/test"))
    func bothEnginesHaveTheSameTablesAndColumns() async throws {
        let sqlite = try await Self.schema(of: TestEngine.sqlite.makeStore(), columns: "SELECT name FROM pragma_table_info(?)")
        let postgres = try await Self.schema(
            of: TestEngine.postgres.makeStore(),
            columns: "SELECT column_name::text FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?"
        )
        #expect(!sqlite.isEmpty)
        #expect(postgres == sqlite)
    }

    @Test(arguments: TestEngine.allCases) func aNewStoreHasTheCurrentSchema(engine: TestEngine) async throws {
        #expect(try await engine.makeStore().hasCurrentSchema())
    }

    /// Each table's columns, names in lower case (PostgreSQL folds names it was not given in quotes).
    private static func schema(of store: BotStore, columns sql: String) async throws -> [String: Set<String>] {
        try await store.read { session in
            var schema: [String: Set<String>] = [:]
            for table in try session.tableNames() {
                let names: [String] = try session.column(sql, [.text(table)])
                schema[table.lowercased()] = Set(names.map { $0.lowercased() })
            }
            return schema
        }
    }
}
