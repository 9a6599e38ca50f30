#if PostgreSQL
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// One PostgreSQL connection inside a transaction, as a `StoreSession`: the store's SQL with
/// its `?` placeholders numbered as PostgreSQL wants them, each statement awaited in turn.
final class PostgresSession: StoreSession {
    let connection: PostgresConnection
    private let texts: PostgresStatementTexts
    private let logger: Logger
    private var endActions: [@Sendable () -> Void] = []
    /// Statements sent whose answers nobody has waited for yet, oldest first.
    private var unanswered: [(sql: String, answer: EventLoopFuture<PostgresQueryResult>)] = []

    init(connection: PostgresConnection, texts: PostgresStatementTexts, logger: Logger) {
        self.connection = connection
        self.texts = texts
        self.logger = logger
    }

    func execute(_ sql: String, _ arguments: [StoreValue]) throws -> Int {
        try query(texts.numbered(sql), arguments).metadata.rows ?? 0
    }

    func insert(_ sql: String, _ arguments: [StoreValue]) throws -> Int64 {
        try value(sql + " RETURNING id", arguments) ?? 0
    }

    func rows(_ sql: String, _ arguments: [StoreValue], keepPrepared: Bool) throws -> [StoreRow] {
        let result = try query(keepPrepared ? texts.numbered(sql) : PostgresStatementTexts.numbering(sql), arguments)
        guard let first = result.rows.first else { return [] }
        let columns = first.map(\.columnName)
        return try result.rows.map { row in StoreRow(columns: columns, values: try row.map(Self.value)) }
    }

    /// The store's own tables, as PostgreSQL names them (in lower case).
    func tableNames() throws -> [String] {
        try column("""
            SELECT table_name::text FROM information_schema.tables
            WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'schemamigration'
            ORDER BY 1
            """)
    }

    func afterTransaction(_ action: @escaping @Sendable () -> Void) {
        endActions.append(action)
    }

    /// Runs a statement without arguments, as written: the engine's own (`BEGIN`, `COMMIT`) and migrations.
    func run(_ sql: String) throws {
        _ = try query(sql, [])
    }

    /// Sends a statement without arguments and goes on without its answer, which the next
    /// statement's waits for: a connection runs its statements in order, and each wait for an
    /// answer is a thread's wake-up, which costs more than the statement.
    func send(_ sql: String) {
        unanswered.append((sql, connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)))
    }

    /// The transaction ended, committed or rolled back: what waited for it runs now.
    func transactionEnded() {
        let actions = endActions
        endActions = []
        for action in actions { action() }
    }

    private func query(_ sql: String, _ arguments: [StoreValue]) throws -> PostgresQueryResult {
        var binds = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            switch argument {
            case .null: binds.appendNull()
            case .integer(let value): binds.append(value)
            case .real(let value): binds.append(value)
            case .text(let value): binds.append(value)
            case .blob(let value): binds.append(ByteBuffer(bytes: value))
            case .boolean(let value): binds.append(value)
            }
        }
        let answer = connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
        let earlier = unanswered
        unanswered = []
        for (sql, answer) in earlier {
            do { _ = try answer.wait() } catch { throw PostgresStatementError(sql: sql, error: error) }
        }
        do {
            return try answer.wait()
        } catch {
            throw PostgresStatementError(sql: sql, error: error)
        }
    }

    /// A cell as the store reads values: PostgreSQL's integers, floats, booleans, bytes and
    /// text, each as its `StoreValue`. Anything else is read as its text.
    private static func value(_ cell: PostgresCell) throws -> StoreValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
        case .float4, .float8: return .real(try cell.decode(Double.self))
        case .bool: return .boolean(try cell.decode(Bool.self))
        case .bytea: return .blob(try cell.decode(Data.self))
        case .numeric:
            let number = try cell.decode(Decimal.self)
            let whole = NSDecimalNumber(decimal: number)
            return Decimal(whole.int64Value) == number ? .integer(whole.int64Value) : .real(whole.doubleValue)
        default: return .text(try cell.decode(String.self))
        }
    }
}

/// What PostgreSQL said of a statement, with its SQLSTATE: postgres-nio's own errors describe
/// themselves as nothing, to keep values out of logs. The statement's text is the store's own
/// SQL and carries no values, which travel apart.
struct PostgresStatementError: Error, CustomStringConvertible {
    let sqlState: String?
    let description: String

    init(sql: String, error: any Error) {
        let statement = sql.split(separator: "\n").first.map { String($0.prefix(120)) } ?? ""
        guard let error = error as? PSQLError else {
            sqlState = nil
            description = "PostgreSQL: \(error) (in \(statement))"
            return
        }
        sqlState = error.serverInfo?[.sqlState]
        if let message = error.serverInfo?[.message] {
            description = "PostgreSQL said: \(message) (SQLSTATE \(sqlState ?? "?"), in \(statement))"
        } else {
            description = "PostgreSQL: \(error.code)\(error.underlying.map { ", \($0)" } ?? "") (in \(statement))"
        }
    }
}
#endif
