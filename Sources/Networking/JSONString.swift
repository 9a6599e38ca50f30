/// JSON string literals, written by hand where a whole `JSONEncoder` is not worth it: log
/// lines and Bot API request bodies. Quotes, backslashes and control characters are
/// escaped; everything else stays UTF-8, which JSON allows. (A UTF-8 sequence for a
/// non-ASCII scalar never holds a byte below 0x80, so escaping by byte is escaping by scalar.)
public enum JSONString {
    /// Appends `text` as a JSON string literal, quotes included. Runs of bytes that need no
    /// escape are found eight at a time and copied whole.
    public static func append(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes in
            out.reserveCapacity(out.count + bytes.count + 2)
            out.append(UInt8(ascii: "\""))
            var runStart = 0
            var index = 0
            while index < bytes.count {
                index = JSONBytes.plainRun(in: bytes, from: index)
                guard index < bytes.count else { break }
                let byte = bytes[index]
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                index += 1
                runStart = index
                out.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(byte)
                case UInt8(ascii: "\n"): out.append(UInt8(ascii: "n"))
                case UInt8(ascii: "\r"): out.append(UInt8(ascii: "r"))
                case UInt8(ascii: "\t"): out.append(UInt8(ascii: "t"))
                default:
                    out.append(UInt8(ascii: "u"))
                    out.append(UInt8(ascii: "0"))
                    out.append(UInt8(ascii: "0"))
                    out.append(hexDigits[Int(byte >> 4)])
                    out.append(hexDigits[Int(byte & 0xF)])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
            out.append(UInt8(ascii: "\""))
        }
    }

    /// `text` as a JSON string literal, quotes included.
    public static func quoted(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 2)
        append(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}

/// Scanning JSON string bytes, eight at a time where it can: message texts are a kilobyte
/// each way, and a byte at a time that costs more than the rest of the request.
enum JSONBytes {
    /// The index of the first byte at or after `start` that a JSON string cannot hold as it is
    /// (a quote, a backslash, a control character), or `bytes.count`.
    static func plainRun(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        guard let base = bytes.baseAddress else { return bytes.count }
        while index + 8 <= bytes.count {
            // Little-endian, so that the first byte in memory is the lowest.
            let special = specials(in: UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)))
            if special != 0 { return index + special.trailingZeroBitCount / 8 }
            index += 8
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return index }
            index += 1
        }
        return index
    }

    /// Whether every byte is ASCII, looked at eight at a time.
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var index = 0
        var seen: UInt64 = 0
        while index + 8 <= bytes.count {
            seen |= UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            index += 8
        }
        while index < bytes.count {
            seen |= UInt64(bytes[index])
            index += 1
        }
        return seen & 0x8080_8080_8080_8080 == 0
    }

    /// The bytes as a string, or nil if they are not valid UTF-8: ASCII, as most are, without
    /// the standard library's generic validation, which costs more than the rest of the read.
    static func string(validating bytes: UnsafeBufferPointer<UInt8>) -> String? {
        isASCII(bytes) ? String(decoding: bytes, as: UTF8.self) : String(validating: bytes, as: UTF8.self)
    }

    /// The word's bytes that are below 0x20, a quote or a backslash, each marked by its top
    /// bit (the classic bit tricks: a byte below n borrows into its top bit; an equal byte is
    /// zero). A borrow can mark a byte above a marked one, never below: the lowest mark is
    /// the first such byte.
    @inline(__always)
    private static func specials(in word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let below20 = (word &- ones &* 0x20) & ~word & highs
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let zeroQuote = (quote &- ones) & ~quote & highs
        let zeroBackslash = (backslash &- ones) & ~backslash & highs
        return below20 | zeroQuote | zeroBackslash
    }
}
