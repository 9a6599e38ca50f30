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

    static func integer(_ value: Int64?) -> SQLiteValue { value.map { .integer($0) } ?? .null }
    static func text(_ value: String?) -> SQLiteValue { value.map { .text($0) } ?? .null }
    /// A date, bound as the bot stores it (`StoredDate`).
    static func date(_ value: Date) -> SQLiteValue { .text(StoredDate.text(value)) }
}

extension Statement {
    /// Runs the statement with `values` bound straight through SQLite's C API: for the few
    /// statements that run for every update and every message (the journal's, the outbox's),
    /// where GRDB's arguments, each value boxed and converted, cost more than SQLite's work.
    /// These statements are never run through GRDB's own `execute`, so its view of their
    /// bindings never goes stale.
    ///
    /// Returns how many rows it changed (SQLite's count, which GRDB's `changesCount` reads
    /// through its checks of the calling queue).
    @discardableResult
    func run(_ values: SQLiteValue...) throws -> Int {
        _ = try step(values)
        return Int(sqlite3_changes64(sqlite3_db_handle(sqliteStatement)))
    }

    /// Runs an INSERT with `values` bound; returns the new row's id.
    func insert(_ values: SQLiteValue...) throws -> Int64 {
        _ = try step(values)
        return sqlite3_last_insert_rowid(sqlite3_db_handle(sqliteStatement))
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
        return try bindAndStep(values[...], at: 1, statement)
    }

    /// Binds the first value, then the rest within its scope, and steps once all are bound.
    /// Text and blobs are bound without a copy (SQLITE_STATIC): their bytes are only borrowed
    /// for their scope, so the step runs inside every one, and the bindings are cleared before
    /// it ends.
    private func bindAndStep(_ values: ArraySlice<SQLiteValue>, at index: Int32, _ statement: OpaquePointer?) throws -> Bool {
        guard let value = values.first else {
            let code = sqlite3_step(statement)
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
            guard code == SQLITE_DONE || code == SQLITE_ROW else { throw error(code) }
            return code == SQLITE_ROW
        }
        let rest = values.dropFirst()
        func then(_ code: Int32) throws -> Bool {
            guard code == SQLITE_OK else {
                sqlite3_clear_bindings(statement)
                throw error(code)
            }
            return try bindAndStep(rest, at: index + 1, statement)
        }
        func bind(_ bytes: UnsafeRawBufferPointer) throws -> Bool {
            // An empty buffer may have no address: it binds as an empty blob.
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return try then(sqlite3_bind_zeroblob(statement, index, 0)) }
            return try then(sqlite3_bind_blob(statement, index, base, Int32(bytes.count), borrowed))
        }
        switch value {
        case .integer(let number):
            return try then(sqlite3_bind_int64(statement, index, number))
        case .text(var text):
            return try text.withUTF8 { utf8 in
                // An empty string's buffer may have no address: SQLite would bind NULL.
                guard let base = utf8.baseAddress else { return try then(sqlite3_bind_text(statement, index, "", 0, borrowed)) }
                return try then(base.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
                    sqlite3_bind_text(statement, index, $0, Int32(utf8.count), borrowed)
                })
            }
        case .blob(let data):
            return try data.withUnsafeBytes(bind)
        case .bytes(let bytes):
            return try bytes.withUnsafeBytes(bind)
        case .null:
            return try then(sqlite3_bind_null(statement, index))
        }
    }

    private func error(_ code: Int32) -> DatabaseError {
        let message = sqlite3_db_handle(sqliteStatement).flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        return DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql)
    }
}

/// SQLITE_STATIC (a null destructor): SQLite uses the bound bytes as they are, until they are
/// bound again or cleared.
private let borrowed: sqlite3_destructor_type? = nil
