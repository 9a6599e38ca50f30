import Foundation
import GRDB
import GRDBSQLite

/// One run of a prepared statement through SQLite's C API: `StoreValue`s bound, stepped to the
/// end, then reset and its bindings cleared, so that a cached statement holds no value between
/// runs. GRDB prepares and caches the statements; these are never run through GRDB's own
/// `execute` or fetches, so its view of their bindings never goes stale.
struct SQLiteStatementRun {
    private let statement: Statement
    private var handle: OpaquePointer { statement.sqliteStatement }

    /// Binds `arguments` to `statement`; throws if their number is not the statement's.
    init(_ statement: Statement, _ arguments: [StoreValue]) throws {
        self.statement = statement
        // Every run resets the statement and clears its bindings when it ends, even when it
        // fails: nothing is left to undo first.
        let handle = statement.sqliteStatement
        guard sqlite3_bind_parameter_count(handle) == arguments.count else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "\(arguments.count) values for \(sqlite3_bind_parameter_count(handle)) parameters", sql: statement.sql
            )
        }
        for (offset, value) in arguments.enumerated() {
            try check(Self.bind(value, at: Int32(offset + 1), to: handle))
        }
    }

    /// Steps to the end, ignoring any rows; returns how many rows the statement changed.
    func changes() throws -> Int {
        defer { finish() }
        while try step() {}
        return Int(sqlite3_changes64(sqlite3_db_handle(handle)))
    }

    /// Steps to the end and returns every row.
    func rows() throws -> [StoreRow] {
        defer { finish() }
        let columns = statement.columnNames
        var rows: [StoreRow] = []
        while try step() {
            var values: [StoreValue] = []
            values.reserveCapacity(columns.count)
            for index in 0..<Int32(columns.count) { values.append(value(at: index)) }
            rows.append(StoreRow(columns: columns, values: values))
        }
        return rows
    }

    /// Whether the step yielded a row (false once the statement is done).
    private func step() throws -> Bool {
        let code = sqlite3_step(handle)
        guard code == SQLITE_ROW || code == SQLITE_DONE else { throw error(code) }
        return code == SQLITE_ROW
    }

    private func finish() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    private func value(at index: Int32) -> StoreValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT:
            // The length first: text may hold a NUL, which a C string would end at.
            guard let text = sqlite3_column_text(handle, index) else { return .text("") }
            let count = Int(sqlite3_column_bytes(handle, index))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            guard let bytes = sqlite3_column_blob(handle, index) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, index))))
        default:
            return .null
        }
    }

    /// Binds one value; text and blobs are copied by SQLite (`SQLITE_TRANSIENT`), so nothing
    /// bound outlives the Swift value it came from.
    private static func bind(_ value: StoreValue, at index: Int32, to handle: OpaquePointer) -> Int32 {
        switch value {
        case .null:
            return sqlite3_bind_null(handle, index)
        case .integer(let integer):
            return sqlite3_bind_int64(handle, index, integer)
        case .boolean(let flag):
            return sqlite3_bind_int64(handle, index, flag ? 1 : 0)
        case .real(let real):
            return sqlite3_bind_double(handle, index, real)
        case .text(var text):
            return text.withUTF8 { utf8 in
                // An empty string's buffer may have no address, which SQLite would bind as NULL.
                guard let base = utf8.baseAddress else { return sqlite3_bind_text(handle, index, "", 0, copied) }
                return base.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
                    sqlite3_bind_text(handle, index, $0, Int32(utf8.count), copied)
                }
            }
        case .blob(let data):
            return data.withUnsafeBytes { bytes in
                guard let base = bytes.baseAddress, !bytes.isEmpty else { return sqlite3_bind_zeroblob(handle, index, 0) }
                return sqlite3_bind_blob(handle, index, base, Int32(bytes.count), copied)
            }
        }
    }

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else {
            finish()
            throw error(code)
        }
    }

    private func error(_ code: Int32) -> DatabaseError {
        let message = sqlite3_db_handle(handle).flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        return DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
    }
}

/// SQLITE_TRANSIENT: SQLite copies the bound bytes before the call returns.
private let copied = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
