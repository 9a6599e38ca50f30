import Foundation

/// The one pass over a document that builds its tape.
struct JSONTapeReader {
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
            // Plain text goes in one step, up to the first byte that needs a look.
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
        func digits(_ reader: inout JSONTapeReader) -> Int {
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
