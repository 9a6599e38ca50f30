import Foundation
import GRDB
import GRDBSQLite

/// A value bound to a statement through SQLite's C API.
enum SQLiteValue {
    case integer(Int64)
    case text(String)
    case blob(Data)
    case bytes([UInt8])
    case null

    /// A date as the bot stores it (`StoredDate`).
    static func date(_ date: Date) -> SQLiteValue { .text(StoredDate.text(date)) }

    static func integer(_ value: Int64?) -> SQLiteValue { value.map { .integer($0) } ?? .null }
    static func text(_ value: String?) -> SQLiteValue { value.map { .text($0) } ?? .null }
}

extension Statement {
    /// Runs the statement with `values` bound straight through SQLite's C API: for the few
    /// statements that run for every update and every message (the journal's, the outbox's),
    /// where GRDB's arguments, each value boxed and converted, cost more than SQLite's work.
    /// These statements are never run through GRDB's own `execute`, so its view of their
    /// bindings never goes stale.
    func run(_ values: SQLiteValue...) throws {
        _ = try step(values)
    }

    /// Whether the statement, with `values` bound, yields a row: for a lookup that mostly finds
    /// nothing, which then costs no GRDB cursor or row.
    func hasRow(_ values: SQLiteValue...) throws -> Bool {
        try step(values)
    }

    /// Binds `values`, steps once and resets; returns whether the step yielded a row.
    private func step(_ values: [SQLiteValue]) throws -> Bool {
        let statement = sqliteStatement
        sqlite3_reset(statement)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .integer(let number):
                code = sqlite3_bind_int64(statement, index, number)
            case .text(var text):
                code = text.withUTF8 { utf8 in
                    // An empty string's buffer may have no address: SQLite then binds NULL.
                    utf8.withMemoryRebound(to: CChar.self) { chars in
                        chars.baseAddress.map { sqlite3_bind_text(statement, index, $0, Int32(chars.count), transient) }
                            ?? sqlite3_bind_text(statement, index, "", 0, transient)
                    }
                }
            case .blob(let data):
                code = data.isEmpty
                    ? sqlite3_bind_zeroblob(statement, index, 0)
                    : data.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), transient) }
            case .bytes(let bytes):
                code = bytes.isEmpty
                    ? sqlite3_bind_zeroblob(statement, index, 0)
                    : bytes.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), transient) }
            case .null:
                code = sqlite3_bind_null(statement, index)
            }
            guard code == SQLITE_OK else { throw error(code) }
        }
        let code = sqlite3_step(statement)
        sqlite3_reset(statement)
        guard code == SQLITE_DONE || code == SQLITE_ROW else { throw error(code) }
        return code == SQLITE_ROW
    }

    private func error(_ code: Int32) -> DatabaseError {
        let message = sqlite3_db_handle(sqliteStatement).flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        return DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql)
    }
}

/// SQLITE_TRANSIENT, a C macro Swift cannot import: SQLite copies the bound bytes.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
