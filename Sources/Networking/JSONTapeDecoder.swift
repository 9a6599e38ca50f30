import Foundation

/// Decodes `Decodable` values from JSON, as `JSONDecoder` does with its default strategies,
/// at a fraction of its cost: the document is read once into a `JSONTape`, and containers
/// find their keys on it without building a dictionary per object or a coding path per
/// value. It reads every answer of the Bot API and every update the bot receives.
///
/// What differs from `JSONDecoder`: the document must be UTF-8 and strict RFC 8259 JSON (a
/// trailing comma is an error); a key that appears twice in an object yields its first value,
/// not its last; errors carry no coding path, only a description; and a string is checked
/// for valid UTF-8 only when something decodes it.
public struct JSONTapeDecoder: Sendable {
    /// Handed to every `init(from:)`, as `JSONDecoder.userInfo` is.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try decode(type, from: [UInt8](data))
    }

    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        let tape: JSONTape
        do {
            tape = try JSONTape(bytes)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "The given data was not valid JSON: \(error)."))
        }
        return try TapeDecoding(tape: tape, index: 0, userInfo: userInfo).decode(type)
    }
}

/// What a type decoding itself from a `JSONTapeDecoder` can ask of its decoder beyond
/// `Decoder`: the value on the tape, to read it directly (`JSONNode`).
public protocol JSONSourceDecoder: Decoder {
    /// The value being decoded.
    var node: JSONNode { get }
}

/// A decoder positioned at one value of a tape.
private struct TapeDecoding: JSONSourceDecoder {
    let tape: JSONTape
    let index: Int
    let userInfoValues: [CodingUserInfoKey: any Sendable]

    init(tape: JSONTape, index: Int, userInfo: [CodingUserInfoKey: any Sendable]) {
        self.tape = tape
        self.index = index
        self.userInfoValues = userInfo
    }

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { userInfoValues }
    var node: JSONNode { JSONNode(tape: tape, index: index) }
    var kind: JSONTape.Kind { tape.values[index].kind }

    func at(_ index: Int) -> TapeDecoding {
        TapeDecoding(tape: tape, index: index, userInfo: userInfoValues)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard kind == .object else { throw mismatch([String: Any].self) }
        return KeyedDecodingContainer(TapeKeyedContainer<Key>(decoding: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard kind == .array else { throw mismatch([Any].self) }
        return TapeUnkeyedContainer(decoding: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        TapeSingleValueContainer(decoding: self)
    }

    // MARK: Values

    func mismatch(_ type: Any.Type) -> DecodingError {
        let found = switch kind {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .true, .false: "a boolean"
        case .null: "null"
        }
        if kind == .null {
            return .valueNotFound(type, .init(codingPath: [], debugDescription: "Expected \(type) but found null."))
        }
        return .typeMismatch(type, .init(codingPath: [], debugDescription: "Expected \(type) but found \(found)."))
    }

    func decodeBool() throws -> Bool {
        switch kind {
        case .true: true
        case .false: false
        default: throw mismatch(Bool.self)
        }
    }

    func decodeString() throws -> String {
        guard kind == .string else { throw mismatch(String.self) }
        guard let string = tape.string(at: index) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "A string is not valid UTF-8."))
        }
        return string
    }

    func decodeDouble() throws -> Double {
        guard kind == .number else { throw mismatch(Double.self) }
        guard let value = tape.double(at: index) else { throw outOfRange(Double.self) }
        return value
    }

    func decodeFloat() throws -> Float {
        let value = try decodeDouble()
        guard value.magnitude <= Double(Float.greatestFiniteMagnitude) else { throw outOfRange(Float.self) }
        return Float(value)
    }

    func decodeInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        guard kind == .number else { throw mismatch(type) }
        if T.isSigned, let value = tape.int64(at: index), let exact = T(exactly: value) { return exact }
        if !T.isSigned, let value = tape.uint64(at: index), let exact = T(exactly: value) { return exact }
        // Written with a fraction or an exponent (`1.0`, `1e3`), as JSONDecoder accepts.
        if !tape.values[index].flag, let double = tape.double(at: index), let exact = T(exactly: double) { return exact }
        throw outOfRange(type)
    }

    private func outOfRange(_ type: Any.Type) -> DecodingError {
        .dataCorrupted(.init(codingPath: [], debugDescription: "Number \(tape.numberText(at: index)) does not fit in \(type)."))
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        // JSONDecoder's default strategies for these: an absolute URL string, base64 data.
        if type == URL.self {
            guard let url = URL(string: try decodeString()) else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "Invalid URL string."))
            }
            return url as! T
        }
        if type == Data.self {
            guard let data = Data(base64Encoded: try decodeString()) else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "Encountered Data is not valid Base64."))
            }
            return data as! T
        }
        return try T(from: self)
    }
}

private struct TapeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoding: TapeDecoding

    var codingPath: [any CodingKey] { [] }

    var allKeys: [Key] {
        decoding.tape.keys(of: decoding.index).compactMap { decoding.tape.string(at: $0).flatMap(Key.init(stringValue:)) }
    }

    func contains(_ key: Key) -> Bool {
        decoding.tape.member(key.stringValue, in: decoding.index) != nil
    }

    /// The value for `key`, or `keyNotFound`.
    private func value(_ key: Key) throws -> TapeDecoding {
        guard let index = decoding.tape.member(key.stringValue, in: decoding.index) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: [], debugDescription: "No value for key \"\(key.stringValue)\"."))
        }
        return decoding.at(index)
    }

    /// The value for `key` unless it is missing or null.
    private func presentValue(_ key: Key) -> TapeDecoding? {
        guard let index = decoding.tape.member(key.stringValue, in: decoding.index), decoding.tape.values[index].kind != .null else {
            return nil
        }
        return decoding.at(index)
    }

    func decodeNil(forKey key: Key) throws -> Bool { try value(key).kind == .null }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try value(key).decodeBool() }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try value(key).decodeString() }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try value(key).decodeDouble() }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try value(key).decodeFloat() }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try value(key).decodeInteger(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try value(key).decodeInteger(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try value(key).decodeInteger(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try value(key).decodeInteger(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try value(key).decodeInteger(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try value(key).decodeInteger(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try value(key).decodeInteger(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try value(key).decodeInteger(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try value(key).decodeInteger(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try value(key).decodeInteger(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try value(key).decode(type) }

    // One look-up each, where the protocol's defaults would make three.
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try presentValue(key)?.decodeBool() }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try presentValue(key)?.decodeString() }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try presentValue(key)?.decodeDouble() }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try presentValue(key)?.decodeFloat() }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try presentValue(key)?.decodeInteger(type) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try presentValue(key)?.decodeInteger(type) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try presentValue(key)?.decodeInteger(type) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try presentValue(key)?.decodeInteger(type) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try presentValue(key)?.decodeInteger(type) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try presentValue(key)?.decodeInteger(type) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try presentValue(key)?.decodeInteger(type) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try presentValue(key)?.decodeInteger(type) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try presentValue(key)?.decodeInteger(type) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try presentValue(key)?.decodeInteger(type) }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { try presentValue(key)?.decode(type) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try value(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try value(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        decoding.tape.member("super", in: decoding.index).map(decoding.at) ?? decoding.at(decoding.index)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try value(key)
    }
}

private struct TapeUnkeyedContainer: UnkeyedDecodingContainer {
    let decoding: TapeDecoding
    /// The next element's value index.
    private var next: Int
    private(set) var currentIndex = 0

    init(decoding: TapeDecoding) {
        self.decoding = decoding
        next = decoding.index + 1
    }

    var codingPath: [any CodingKey] { [] }
    var count: Int? { Int(decoding.tape.values[decoding.index].count) }
    var isAtEnd: Bool { currentIndex >= count! }

    /// The next element, which the caller then consumes.
    private mutating func element(_ type: Any.Type) throws -> TapeDecoding {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: [], debugDescription: "Unkeyed container is at end."))
        }
        let element = decoding.at(next)
        next = Int(decoding.tape.values[next].next)
        currentIndex += 1
        return element
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any?.self, .init(codingPath: [], debugDescription: "Unkeyed container is at end."))
        }
        guard decoding.tape.values[next].kind == .null else { return false }
        _ = try element(Any?.self)
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try element(type).decodeBool() }
    mutating func decode(_ type: String.Type) throws -> String { try element(type).decodeString() }
    mutating func decode(_ type: Double.Type) throws -> Double { try element(type).decodeDouble() }
    mutating func decode(_ type: Float.Type) throws -> Float { try element(type).decodeFloat() }
    mutating func decode(_ type: Int.Type) throws -> Int { try element(type).decodeInteger(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try element(type).decodeInteger(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try element(type).decodeInteger(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try element(type).decodeInteger(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try element(type).decodeInteger(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try element(type).decodeInteger(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try element(type).decodeInteger(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try element(type).decodeInteger(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try element(type).decodeInteger(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try element(type).decodeInteger(type) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try element(type).decode(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try element(type).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try element([Any].self).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        try element(Any.self)
    }
}

private struct TapeSingleValueContainer: SingleValueDecodingContainer {
    let decoding: TapeDecoding

    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool { decoding.kind == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try decoding.decodeBool() }
    func decode(_ type: String.Type) throws -> String { try decoding.decodeString() }
    func decode(_ type: Double.Type) throws -> Double { try decoding.decodeDouble() }
    func decode(_ type: Float.Type) throws -> Float { try decoding.decodeFloat() }
    func decode(_ type: Int.Type) throws -> Int { try decoding.decodeInteger(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoding.decodeInteger(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoding.decodeInteger(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoding.decodeInteger(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoding.decodeInteger(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoding.decodeInteger(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoding.decodeInteger(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoding.decodeInteger(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoding.decodeInteger(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoding.decodeInteger(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoding.decode(type) }
}
