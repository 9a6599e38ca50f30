import Foundation

/// A value of a JSON document read onto a tape (`JSONTape`): what a type that reads itself
/// from JSON directly, rather than through `Decodable`, is handed. Reading a member or an
/// element copies nothing; a string becomes a `String`, its UTF-8 checked, when asked for.
///
/// The accessors answer nil for a value of another kind: the caller decides what is missing
/// and what is malformed.
public struct JSONNode: Sendable {
    let tape: JSONTape
    let index: Int

    init(tape: JSONTape, index: Int) {
        self.tape = tape
        self.index = index
    }

    /// The root of `bytes`, which must be one JSON document (see `JSONTape` for how strictly
    /// it is read). An API answer is read with `init(answer:)`.
    public init(parsing bytes: [UInt8]) throws(Malformed) {
        do {
            self.init(tape: try JSONTape(bytes), index: 0)
        } catch {
            throw Malformed(description: "not valid JSON: \(error)")
        }
    }

    /// The root of an HTTP API answer's body: one JSON document, after a UTF-8 byte order mark
    /// if there is one. `JSONDecoder` skipped the mark, and a PHP server (GNU FM, Libre.fm's)
    /// sends one whenever a source file starts with it.
    public init(answer body: Data) throws(Malformed) {
        let bytes = [UInt8](body)
        try self.init(parsing: bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes)
    }

    /// A document that is not JSON, or a value that is not what its reader needs.
    public struct Malformed: Error, Sendable, CustomStringConvertible {
        public var description: String

        public init(description: String) {
            self.description = description
        }
    }

    private var value: JSONTape.Value { tape.values[index] }

    public var isNull: Bool { value.kind == .null }
    public var isObject: Bool { value.kind == .object }
    public var isArray: Bool { value.kind == .array }
    public var isString: Bool { value.kind == .string }

    /// Whether this is an object whose keys are all text (valid UTF-8, no escaped lone
    /// surrogate). Foundation's `JSONDecoder`, which read Last.fm's and ListenBrainz's answers
    /// before, read no member of an object with another key; their readers refuse it as it did.
    public var isReadableObject: Bool {
        value.kind == .object && tape.keys(of: index).allSatisfy { tape.string(at: $0) != nil }
    }

    public var bool: Bool? {
        switch value.kind {
        case .true: true
        case .false: false
        default: nil
        }
    }

    /// An integer, as `JSONDecoder` reads one: written as an integer, or as a number with a
    /// fraction or an exponent whose value is a whole number (`1.0`, `1e3`) that fits.
    public var int64: Int64? {
        guard value.kind == .number else { return nil }
        if let exact = tape.int64(at: index) { return exact }
        guard !value.flag, let double = tape.double(at: index) else { return nil }
        return Int64(exactly: double)
    }

    /// A number written as an integer (no fraction, no exponent) that fits in 64 bits.
    public var integer: Int64? { tape.int64(at: index) }

    /// Any number, rounded to the nearest `Double`; nil if it is out of `Double`'s range.
    public var double: Double? { tape.double(at: index) }

    /// A string, unescaped; nil for another kind, invalid UTF-8, or an escaped lone surrogate.
    public var string: String? { value.kind == .string ? tape.string(at: index) : nil }

    /// The member `key` of an object: the first, should a key repeat. Nil if this is not an
    /// object or has no such member.
    public subscript(key: StaticString) -> JSONNode? {
        guard value.kind == .object else { return nil }
        return tape.member(UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount), in: index)
            .map { JSONNode(tape: tape, index: $0) }
    }

    /// The members of an object in document order, a repeated key each time it appears; a key
    /// that is not valid UTF-8 (or escapes a lone surrogate) is nil. Empty for any other kind.
    public var members: [(key: String?, value: JSONNode)] {
        guard value.kind == .object else { return [] }
        return tape.keys(of: index).map { (tape.string(at: $0), JSONNode(tape: tape, index: $0 + 1)) }
    }

    /// The elements of an array; empty for any other kind.
    public var elements: [JSONNode] {
        guard value.kind == .array else { return [] }
        var elements: [JSONNode] = []
        elements.reserveCapacity(Int(value.count))
        var next = index + 1
        for _ in 0..<value.count {
            elements.append(JSONNode(tape: tape, index: next))
            next = Int(tape.values[next].next)
        }
        return elements
    }

    /// The value's text as it is in the document, quotes included.
    public var source: ArraySlice<UInt8> { tape.source(of: index) }
}
