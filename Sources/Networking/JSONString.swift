/// JSON string literals, written by hand where a whole `JSONEncoder` is not worth it: log
/// lines and Bot API request bodies. Quotes, backslashes and control characters are
/// escaped; everything else stays UTF-8, which JSON allows. (A UTF-8 sequence for a
/// non-ASCII scalar never holds a byte below 0x80, so escaping by byte is escaping by scalar.)
public enum JSONString {
    /// Appends `text` as a JSON string literal, quotes included. Runs of bytes that need no
    /// escape are copied whole.
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

/// Which bytes a JSON string cannot hold as they are, in one place for the writer
/// (`JSONString`) and the reader (`JSONTapeReader`).
enum JSONBytes {
    /// The index of the first byte at or after `start` that a JSON string cannot hold as it is
    /// (a quote, a backslash, a control character), or `bytes.count`.
    static func plainRun(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        bytes[start...].firstIndex { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") } ?? bytes.count
    }
}
