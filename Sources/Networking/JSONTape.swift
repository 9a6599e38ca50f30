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
        var reader = JSONTapeReader()
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
            guard value.flag else { return Self.validString(raw) }
            return Self.unescape(raw).flatMap { $0.withUnsafeBufferPointer(Self.validString) }
        }
    }

    /// The text of UTF-8 bytes; nil if they are not valid UTF-8. ASCII, nearly every string
    /// of an answer, needs no check: `String(validating:)` looks up generic metadata for
    /// each string, which cost more than reading the rest of it.
    private static func validString(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        bytes.allSatisfy { $0 < 0x80 } ? String(decoding: bytes, as: UTF8.self) : String(validating: bytes, as: UTF8.self)
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

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
