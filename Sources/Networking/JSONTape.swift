import Foundation

/// A JSON document read once into a flat list of its values (a tape), in document order:
/// what `JSONNode` reads from. A container's entries follow it, an object's as key,
/// value, key, value; each entry records where the next one starts, so a decoder finds a
/// key by walking an object's entries and skips a value it does not want in one step.
///
/// Reading checks the whole document against RFC 8259: structure, string escapes, number
/// syntax, and nothing after the value. Strings are not decoded here, only delimited: a
/// string becomes a `String` (and its UTF-8 is checked) when a decoder asks for it, so the
/// long texts in an answer that nobody reads cost one scan. Nesting deeper than
/// `maxDepth` is refused rather than followed.
final class JSONTape: Sendable {
    enum Kind: UInt8, Sendable {
        case object, array, string, number, `true`, `false`, null
    }

    struct Value: Sendable {
        var kind: Kind
        /// Strings: holds a backslash escape. Numbers: has no fraction or exponent.
        var flag: Bool
        /// Where the value starts: a string's first byte after its quote; a container's bracket.
        var start: Int32
        /// Where it ends: a string's closing quote; one past a container's bracket or a literal.
        var end: Int32
        /// The entry after this value and everything in it.
        var next: Int32
        /// Containers: how many entries (an object's key and value count once).
        var count: Int32
    }

    /// The most containers open at once.
    static let maxDepth = 256

    let bytes: [UInt8]
    let values: [Value]

    /// Reads `bytes` as one JSON document. Throws `JSONTape.Failure` for anything else.
    init(_ bytes: [UInt8]) throws(Failure) {
        guard bytes.count < Int32.max else { throw Failure("document too large", at: 0) }
        self.bytes = bytes
        var reader = Reader()
        try bytes.withUnsafeBufferPointer { buffer throws(Failure) in try reader.read(buffer) }
        values = reader.values
    }

    /// Why a document is not JSON, and the byte offset where reading stopped.
    struct Failure: Error, CustomStringConvertible {
        var reason: String
        var offset: Int

        init(_ reason: String, at offset: Int) {
            self.reason = reason
            self.offset = offset
        }

        var description: String { "\(reason) at byte \(offset)" }
    }

    // MARK: Reading values

    /// The keys of the object at `index`, as value indexes; each one's value follows it.
    func keys(of index: Int) -> [Int] {
        var keys: [Int] = []
        var entry = Int32(index + 1)
        for _ in 0..<values[index].count {
            keys.append(Int(entry))
            entry = values[Int(entry) + 1].next
        }
        return keys
    }

    /// The value for `key` (its UTF-8) in the object at `index`: the first one, should a key repeat.
    func member(_ wanted: UnsafeBufferPointer<UInt8>, in index: Int) -> Int? {
        values.withUnsafeBufferPointer { values in
            bytes.withUnsafeBufferPointer { bytes in
                var entry = index + 1
                for _ in 0..<values[index].count {
                    let key = values[entry]
                    let length = Int(key.end - key.start)
                    if key.flag {
                        // An escaped key: compared once unescaped.
                        if let decoded = string(at: entry), decoded.utf8.elementsEqual(wanted) { return entry + 1 }
                    } else if length == wanted.count,
                              length == 0 || (bytes[Int(key.start)] == wanted[0]
                                  && memcmp(bytes.baseAddress! + Int(key.start), wanted.baseAddress!, length) == 0) {
                        return entry + 1
                    }
                    entry = Int(values[entry + 1].next)
                }
                return nil
            }
        }
    }

    /// The value for `key` in the object at `index`: the first one, should a key repeat.
    func member(_ key: String, in index: Int) -> Int? {
        var key = key
        return key.withUTF8 { member($0, in: index) }
    }

    /// The string at `index`, unescaped; nil if it is not valid UTF-8 or escapes a lone surrogate.
    func string(at index: Int) -> String? {
        let value = values[index]
        return bytes.withUnsafeBufferPointer { all in
            let raw = UnsafeBufferPointer(rebasing: all[Int(value.start)..<Int(value.end)])
            guard value.flag else { return JSONBytes.string(validating: raw) }
            guard let unescaped = Self.unescape(raw) else { return nil }
            return unescaped.withUnsafeBufferPointer(JSONBytes.string(validating:))
        }
    }

    /// The bytes of the value at `index` as they are in the document, quotes included.
    func source(of index: Int) -> ArraySlice<UInt8> {
        let value = values[index]
        return value.kind == .string ? bytes[Int(value.start - 1)...Int(value.end)] : bytes[Int(value.start)..<Int(value.end)]
    }

    /// The text of the number at `index`.
    func numberText(at index: Int) -> Substring {
        let value = values[index]
        return Substring(decoding: bytes[Int(value.start)..<Int(value.end)], as: UTF8.self)
    }

    /// The number at `index` if it is written as an integer (no fraction, no exponent) that
    /// fits in 64 bits.
    func int64(at index: Int) -> Int64? {
        let value = values[index]
        guard value.kind == .number, value.flag else { return nil }
        return bytes.withUnsafeBufferPointer { all -> Int64? in
            var position = Int(value.start)
            let end = Int(value.end)
            let negative = all[position] == UInt8(ascii: "-")
            if negative { position += 1 }
            // Accumulated negatively, so that Int64.min fits.
            var result: Int64 = 0
            while position < end {
                let digit = Int64(all[position] &- UInt8(ascii: "0"))
                let (shifted, overflow1) = result.multipliedReportingOverflow(by: 10)
                let (next, overflow2) = shifted.subtractingReportingOverflow(digit)
                guard !overflow1, !overflow2 else { return nil }
                result = next
                position += 1
            }
            if negative { return result }
            return result == .min ? nil : -result
        }
    }

    /// The number at `index` if it is a non-negative integer that fits in 64 unsigned bits.
    func uint64(at index: Int) -> UInt64? {
        let value = values[index]
        guard value.kind == .number, value.flag, bytes[Int(value.start)] != UInt8(ascii: "-") else { return nil }
        var result: UInt64 = 0
        for position in Int(value.start)..<Int(value.end) {
            let (shifted, overflow1) = result.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = shifted.addingReportingOverflow(UInt64(bytes[position] &- UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            result = next
        }
        return result
    }

    /// The number at `index` as a `Double`, rounded as the nearest one; nil if out of range.
    func double(at index: Int) -> Double? {
        guard values[index].kind == .number, let parsed = Double(numberText(at: index)), parsed.isFinite else { return nil }
        return parsed
    }

    /// The bytes a string's escapes stand for; nil for an escaped lone surrogate.
    private static func unescape(_ raw: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var position = 0
        while position < raw.count {
            let byte = raw[position]
            guard byte == UInt8(ascii: "\\") else {
                out.append(byte)
                position += 1
                continue
            }
            // The reader has checked every escape: it is whole and well formed.
            let escaped = raw[position + 1]
            position += 2
            switch escaped {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex4(raw, position)
                position += 4
                if (0xD800..<0xDC00).contains(scalar) {
                    // A high surrogate must be followed by an escaped low one.
                    guard position + 6 <= raw.count, raw[position] == UInt8(ascii: "\\"), raw[position + 1] == UInt8(ascii: "u") else { return nil }
                    let low = hex4(raw, position + 2)
                    guard (0xDC00..<0xE000).contains(low) else { return nil }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    position += 6
                } else if (0xDC00..<0xE000).contains(scalar) {
                    return nil
                }
                guard let unicode = Unicode.Scalar(scalar) else { return nil }
                out.append(contentsOf: UTF8.encode(unicode)!)
            default:
                out.append(escaped)  // " \ /
            }
        }
        return out
    }

    private static func hex4(_ raw: UnsafeBufferPointer<UInt8>, _ position: Int) -> UInt32 {
        var value: UInt32 = 0
        for byte in raw[position..<(position + 4)] {
            value = value << 4 | UInt32(hexValue(byte) ?? 0)
        }
        return value
    }

    fileprivate static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// The one pass over a document that builds its tape.
private struct Reader {
    var values: [JSONTape.Value] = []
    /// Containers still open, innermost last.
    private var open: [Int] = []
    private var position = 0

    mutating func read(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONTape.Failure) {
        // Bot API answers hold about one value per 9 bytes: reserving for one per 8 saves
        // growing the tape (a copy, and old and new at once) for nearly every answer. Capped,
        // so that a large document of long strings does not reserve far more than it needs.
        values.reserveCapacity(min(max(8, bytes.count / 8), 1 << 16))
        readValue: while true {
            skipSpace(bytes)
            guard position < bytes.count else { throw fail("unexpected end", bytes) }
            switch bytes[position] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = bytes[position] == UInt8(ascii: "{")
                guard open.count < JSONTape.maxDepth else { throw fail("nested too deeply", bytes) }
                open.append(values.count)
                values.append(JSONTape.Value(kind: isObject ? .object : .array, flag: false, start: Int32(position), end: 0, next: 0, count: 0))
                position += 1
                skipSpace(bytes)
                if position < bytes.count, bytes[position] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    position += 1
                    close()
                } else {
                    if isObject { try readKey(bytes) }
                    continue readValue
                }
            case UInt8(ascii: "\""):
                try readString(bytes)
            case UInt8(ascii: "t"):
                try readLiteral("true", .true, bytes)
            case UInt8(ascii: "f"):
                try readLiteral("false", .false, bytes)
            case UInt8(ascii: "n"):
                try readLiteral("null", .null, bytes)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                try readNumber(bytes)
            default:
                throw fail("unexpected character", bytes)
            }
            // A value is complete: go on in the containers around it.
            while let container = open.last {
                values[container].count += 1
                skipSpace(bytes)
                guard position < bytes.count else { throw fail("unexpected end", bytes) }
                let isObject = values[container].kind == .object
                switch bytes[position] {
                case UInt8(ascii: ","):
                    position += 1
                    if isObject { try readKey(bytes) }
                    continue readValue
                case UInt8(ascii: "}") where isObject, UInt8(ascii: "]") where !isObject:
                    position += 1
                    close()
                default:
                    throw fail(isObject ? "expected , or }" : "expected , or ]", bytes)
                }
            }
            skipSpace(bytes)
            guard position == bytes.count else { throw fail("unexpected data after the value", bytes) }
            return
        }
    }

    /// Ends the innermost container at `position`.
    private mutating func close() {
        let container = open.removeLast()
        values[container].end = Int32(position)
        values[container].next = Int32(values.count)
    }

    /// An object's key and the colon after it; the key counts as an entry of its own.
    private mutating func readKey(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONTape.Failure) {
        skipSpace(bytes)
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw fail("expected a key", bytes) }
        try readString(bytes)
        skipSpace(bytes)
        guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw fail("expected :", bytes) }
        position += 1
    }

    private mutating func readString(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONTape.Failure) {
        let start = position + 1
        var index = start
        var escaped = false
        while index < bytes.count {
            // Plain text goes by eight bytes at a time, up to the first byte that needs a look.
            index = JSONBytes.plainRun(in: bytes, from: index)
            guard index < bytes.count else { break }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                values.append(JSONTape.Value(kind: .string, flag: escaped, start: Int32(start), end: Int32(index), next: Int32(values.count + 1), count: 0))
                position = index + 1
                return
            }
            position = index
            if byte < 0x20 { throw fail("control character in a string", bytes) }
            // A backslash.
            escaped = true
            guard index + 1 < bytes.count else { break }
            switch bytes[index + 1] {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                 UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                index += 2
            case UInt8(ascii: "u"):
                guard index + 6 <= bytes.count,
                      bytes[(index + 2)..<(index + 6)].allSatisfy({ JSONTape.hexValue($0) != nil })
                else { throw fail("invalid \\u escape", bytes) }
                index += 6
            default:
                throw fail("invalid escape", bytes)
            }
        }
        position = index
        throw fail("unterminated string", bytes)
    }

    private mutating func readLiteral(_ word: StaticString, _ kind: JSONTape.Kind, _ bytes: UnsafeBufferPointer<UInt8>) throws(JSONTape.Failure) {
        let length = word.utf8CodeUnitCount
        guard position + length <= bytes.count,
              memcmp(bytes.baseAddress! + position, word.utf8Start, length) == 0
        else { throw fail("invalid literal", bytes) }
        values.append(JSONTape.Value(kind: kind, flag: false, start: Int32(position), end: Int32(position + length), next: Int32(values.count + 1), count: 0))
        position += length
    }

    private mutating func readNumber(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONTape.Failure) {
        let start = position
        func digits(_ reader: inout Reader) -> Int {
            let first = reader.position
            while reader.position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[reader.position]) {
                reader.position += 1
            }
            return reader.position - first
        }
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count else { throw fail("invalid number", bytes) }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else if digits(&self) == 0 {
            throw fail("invalid number", bytes)
        }
        var integer = true
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            integer = false
            position += 1
            guard digits(&self) > 0 else { throw fail("invalid number", bytes) }
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            integer = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard digits(&self) > 0 else { throw fail("invalid number", bytes) }
        }
        values.append(JSONTape.Value(kind: .number, flag: integer, start: Int32(start), end: Int32(position), next: Int32(values.count + 1), count: 0))
    }

    private mutating func skipSpace(_ bytes: UnsafeBufferPointer<UInt8>) {
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): position += 1
            default: return
            }
        }
    }

    private func fail(_ reason: String, _ bytes: UnsafeBufferPointer<UInt8>) -> JSONTape.Failure {
        JSONTape.Failure(reason, at: min(position, bytes.count))
    }
}
