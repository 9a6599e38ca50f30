import Telegram

/// A message being written: its UTF-8 bytes, and its length in UTF-16 units (what Telegram
/// counts) kept as it grows.
struct FormattedText {
    private var bytes: [UInt8] = []
    private(set) var units = 0

    init() {
        bytes.reserveCapacity(512)
    }

    var byteCount: Int { bytes.count }
    var string: String { String(decoding: bytes, as: UTF8.self) }

    mutating func append(_ text: String) {
        for byte in text.utf8 {
            bytes.append(byte)
            units += Self.units(of: byte)
        }
    }

    /// Appends a literal, which is written once in the binary: no string is made for it.
    mutating func append(literal: StaticString) {
        let utf8 = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        bytes.append(contentsOf: utf8)
        for byte in utf8 { units += Self.units(of: byte) }
    }

    /// Appends a number in decimal digits.
    mutating func append(_ number: Int) {
        if number < 0 { append(literal: "-") }
        var magnitude = number.magnitude
        let start = bytes.count
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
            units += 1
        } while magnitude > 0
        bytes[start...].reverse()
    }

    /// Appends `text`, escaped for Telegram's HTML if `html`, if it then takes at most `limit`
    /// UTF-16 units; returns false, and appends nothing, otherwise. The escapes are counted by
    /// UTF-8 byte, which is by scalar: no byte of a multi-byte sequence is below 0x80.
    mutating func appendEscaped(_ text: String, html: Bool, ifWithin limit: Int) -> Bool {
        var text = text
        let (escapedUnits, special) = text.withUTF8 { utf8 in
            var escapedUnits = 0
            var special = false
            for byte in utf8 {
                switch byte {
                case UInt8(ascii: "&") where html, UInt8(ascii: "<") where html, UInt8(ascii: ">") where html:
                    escapedUnits += TelegramHTML.escapedLength(Unicode.Scalar(byte))
                    special = true
                default:
                    escapedUnits += Self.units(of: byte)
                }
            }
            return (escapedUnits, special)
        }
        guard escapedUnits <= limit else { return false }
        units += escapedUnits
        // Nearly every name has nothing to escape, and is copied as it is.
        bytes.append(contentsOf: (special ? TelegramHTML.escape(text) : text).utf8)
        return true
    }

    /// Keeps the first `count` bytes, which take `units` UTF-16 units.
    mutating func cut(toBytes count: Int, units: Int) {
        bytes.removeSubrange(count...)
        self.units = units
    }

    /// UTF-16 units a UTF-8 byte adds: one per scalar, two for a scalar beyond the BMP (a
    /// four-byte sequence), nothing for a continuation byte.
    private static func units(of byte: UInt8) -> Int {
        switch byte {
        case 0x80..<0xC0: 0
        case 0xF0...: 2
        default: 1
        }
    }
}
