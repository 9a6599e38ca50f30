import Testing
import TestLogging
@testable import Throwback

/// `DATABASE_URL` picks PostgreSQL; a bad one is refused in one line that never shows its password.
@Suite(.capturingLogs) struct DatabaseConfigurationTests {
    private static func load(_ url: String) throws -> BotConfiguration {
        try BotConfiguration.load(environment: ["DATABASE_URL": url], environmentFile: "/nonexistent/.env").configuration
    }

    @Test func aBadURLIsRefusedWithoutItsPassword() {
        #expect {
            try Self.load("postgres://bot:hunter2@db:99999/vinylogue")
        } throws: { error in
            let text = "\(error)"
            return text.contains("DATABASE_URL") && text.contains("99999") && !text.contains("hunter2")
        }
    }

    @Test func theSummaryAndMessagesNameTheServerNotThePassword() throws {
        #if PostgreSQL
        let configuration = try Self.load("postgres://bot:hunter2@db.example:5432/vinylogue?sslmode=require")
        #expect(configuration.databaseURL?.host == "db.example")
        #expect(configuration.summary.contains("DATABASE_URL=") && !configuration.summary.contains("hunter2"))
        #expect(configuration.databaseDescription.contains("db.example") && !configuration.databaseDescription.contains("hunter2"))
        #else
        // A build without PostgreSQL refuses the URL rather than keep the state in SQLite.
        #expect {
            try Self.load("postgres://bot:hunter2@db.example:5432/vinylogue")
        } throws: { error in
            "\(error)".contains("--traits PostgreSQL") && !"\(error)".contains("hunter2")
        }
        #endif
    }
}
