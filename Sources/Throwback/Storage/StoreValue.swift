import Foundation

/// A value bound to, or read from, the store's SQL: what every engine can hold. Dates are
/// text (`StoredDate`), so that both engines store, compare and sort them alike.
public enum StoreValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
    /// An engine with a boolean type reads its booleans as this; SQLite stores them as 0 and 1.
    case boolean(Bool)

    /// A date, as `StoredDate` writes it.
    static func date(_ date: Date) -> StoreValue { .text(StoredDate.text(date)) }

    /// A value that may be missing: SQL's NULL when it is.
    init(_ value: (some StoreValueConvertible)?) {
        self = value?.storeValue ?? .null
    }
}

/// A Swift type the store writes as a `StoreValue` and reads back from one.
protocol StoreValueConvertible {
    var storeValue: StoreValue { get }
    /// Nil when `storeValue` cannot be read as this type.
    init?(storeValue: StoreValue)
}

extension Int64: StoreValueConvertible {
    var storeValue: StoreValue { .integer(self) }

    init?(storeValue: StoreValue) {
        switch storeValue {
        case .integer(let value): self = value
        case .boolean(let value): self = value ? 1 : 0
        default: return nil
        }
    }
}

extension Int: StoreValueConvertible {
    var storeValue: StoreValue { .integer(Int64(self)) }

    init?(storeValue: StoreValue) {
        guard let value = Int64(storeValue: storeValue) else { return nil }
        self.init(value)
    }
}

extension Bool: StoreValueConvertible {
    var storeValue: StoreValue { .boolean(self) }

    init?(storeValue: StoreValue) {
        switch storeValue {
        case .boolean(let value): self = value
        case .integer(let value): self = value != 0
        default: return nil
        }
    }
}

extension String: StoreValueConvertible {
    var storeValue: StoreValue { .text(self) }

    init?(storeValue: StoreValue) {
        guard case .text(let value) = storeValue else { return nil }
        self = value
    }
}

extension Data: StoreValueConvertible {
    var storeValue: StoreValue { .blob(self) }

    /// Text too: SQLite gives back what was written, and a blob written as text reads as text.
    init?(storeValue: StoreValue) {
        switch storeValue {
        case .blob(let value): self = value
        case .text(let value): self = Data(value.utf8)
        default: return nil
        }
    }
}

extension Date: StoreValueConvertible {
    var storeValue: StoreValue { .date(self) }

    init?(storeValue: StoreValue) {
        switch storeValue {
        case .text(let text): guard let date = StoredDate.date(text) else { return nil }; self = date
        // Numbers are Unix times, as GRDB read them.
        case .integer(let seconds): self.init(timeIntervalSince1970: Double(seconds))
        case .real(let seconds): self.init(timeIntervalSince1970: seconds)
        default: return nil
        }
    }
}

extension Optional: StoreValueConvertible where Wrapped: StoreValueConvertible {
    var storeValue: StoreValue { map(\.storeValue) ?? .null }

    init?(storeValue: StoreValue) {
        if case .null = storeValue {
            self = .none
        } else if let value = Wrapped(storeValue: storeValue) {
            self = .some(value)
        } else {
            return nil
        }
    }
}

/// A row a query returned: its values by position, or by column name (ignoring case, since
/// PostgreSQL folds the names it was not given in quotes to lower case).
public struct StoreRow: Sendable {
    /// The result's column names, shared by all its rows.
    let columns: [String]
    let values: [StoreValue]

    /// The value at `index`, read as `T`; throws if it is not one.
    func get<T: StoreValueConvertible>(_ index: Int) throws -> T {
        guard values.indices.contains(index), let value = T(storeValue: values[index]) else {
            throw StoreError.unreadable(column: columns.indices.contains(index) ? columns[index] : "#\(index)", as: "\(T.self)")
        }
        return value
    }

    /// The value of the column `name`, read as `T`; throws if there is none or it is not one.
    func get<T: StoreValueConvertible>(_ name: String) throws -> T {
        guard let index = columns.firstIndex(where: { $0.utf8.elementsEqual(name.utf8, by: Self.sameLetter) }) else {
            throw StoreError.unreadable(column: name, as: "\(T.self)")
        }
        return try get(index)
    }

    private static func sameLetter(_ a: UInt8, _ b: UInt8) -> Bool {
        a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= UInt8(ascii: "a") && (a | 0x20) <= UInt8(ascii: "z"))
    }
}

/// What the store could not make of what its engine gave back.
public enum StoreError: Error, CustomStringConvertible {
    case unreadable(column: String, as: String)
    /// The operation is one engine's own, and the store runs on another.
    case unsupported(String)

    public var description: String {
        switch self {
        case .unreadable(let column, let type): "the stored value of \(column) is not a \(type)"
        case .unsupported(let operation): "\(operation) is not available with this database"
        }
    }
}
