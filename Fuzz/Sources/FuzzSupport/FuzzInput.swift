/// Reads structured values from the fuzz bytes, front to back, like LLVM's FuzzedDataProvider.
/// Once the bytes run out every read returns zeros, so any input describes some value.
public struct FuzzInput {
    private var bytes: ArraySlice<UInt8>

    public init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        bytes = Array(UnsafeBufferPointer(start: data, count: size))[...]
    }

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes[...]
    }

    public var isEmpty: Bool { bytes.isEmpty }
    public var remaining: Int { bytes.count }

    public mutating func byte() -> UInt8 {
        bytes.popFirst() ?? 0
    }

    public mutating func bool() -> Bool {
        byte() & 1 == 1
    }

    /// Up to `count` bytes, fewer at the end of the input.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        let taken = bytes.prefix(max(0, count))
        bytes = bytes.dropFirst(taken.count)
        return Array(taken)
    }

    /// Eight bytes as a 64-bit integer, little-endian.
    public mutating func uint64() -> UInt64 {
        bytes(8).enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
    }

    public mutating func int64() -> Int64 {
        Int64(bitPattern: uint64())
    }

    /// A value in `range`; as few bytes as the range needs.
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        let span = UInt64(bitPattern: Int64(range.upperBound) &- Int64(range.lowerBound))
        guard span > 0 else { return range.lowerBound }
        var raw: UInt64 = 0
        var covered: UInt64 = 0
        while covered < span {
            raw = raw << 8 | UInt64(byte())
            covered = covered << 8 | 0xFF
        }
        let offset = span == .max ? raw : raw % (span + 1)
        return Int(truncatingIfNeeded: Int64(range.lowerBound) &+ Int64(bitPattern: offset))
    }

    /// An integer as a server might send it: mostly small, sometimes at the edges of `Int`.
    public mutating func serverInt() -> Int {
        switch byte() % 8 {
        case 0: Int(int64())
        case 1: .max - int(in: 0...3)
        case 2: .min + int(in: 0...3)
        case 3: -int(in: 0...1000)
        default: int(in: 0...1000)
        }
    }

    /// A string of up to `maxPieces` pieces, each chosen and decoded in one of several ways, so
    /// that plain ASCII, broken UTF-8 and UTF-16, arbitrary scalars, combining marks, emoji, HTML
    /// specials and very long runs all occur.
    public mutating func string(maxPieces: Int = 6) -> String {
        var result = ""
        let pieces = int(in: 0...maxPieces)
        for _ in 0..<pieces where !isEmpty {
            result += piece()
        }
        return result
    }

    /// A non-empty string.
    public mutating func nonEmptyString(maxPieces: Int = 6) -> String {
        let text = string(maxPieces: maxPieces)
        return text.isEmpty ? String(Self.nasty[Int(byte()) % Self.nasty.count]) : text
    }

    private mutating func piece() -> String {
        switch byte() % 8 {
        case 0, 1:
            // Raw bytes as UTF-8, invalid sequences replaced.
            return String(decoding: bytes(int(in: 0...24)), as: UTF8.self)
        case 2:
            // Raw byte pairs as UTF-16, lone surrogates replaced.
            let raw = bytes(2 * int(in: 0...12))
            let units = stride(from: 0, to: raw.count - 1, by: 2).map { UInt16(raw[$0]) | UInt16(raw[$0 + 1]) << 8 }
            return String(decoding: units, as: UTF16.self)
        case 3:
            // Arbitrary Unicode scalars, three bytes each.
            var scalars = String.UnicodeScalarView()
            for _ in 0..<int(in: 0...8) {
                let value = UInt32(byte()) | UInt32(byte()) << 8 | UInt32(byte() % 0x11) << 16
                if let scalar = Unicode.Scalar(value) { scalars.append(scalar) }
            }
            return String(scalars)
        case 4, 5:
            return Self.nasty[Int(byte()) % Self.nasty.count]
        case 6:
            // A long run: one nasty piece repeated, up to a few thousand UTF-16 units.
            let unit = Self.nasty[Int(byte()) % Self.nasty.count]
            return String(repeating: unit, count: int(in: 1...600))
        default:
            // Printable ASCII.
            return String(decoding: bytes(int(in: 0...16)).map { 0x20 + $0 % 0x5F }, as: UTF8.self)
        }
    }

    /// Pieces that have broken chat bots before.
    public static let nasty: [String] = [
        "<", ">", "&", "&amp;", "&lt;", "&#60;", "&x;", "<b>", "</b>", "<a href=\"x\">", "\"", "'",
        "|", "#", "tb|", "@", "/", " ", "\t", "\n", "\r\n", "\u{00A0}", "\u{2028}",
        "\u{0301}", "\u{0338}", "\u{20DD}", "\u{200D}", "\u{FE0F}", "\u{200B}", "\u{FEFF}", "\u{202E}",
        "<\u{0301}", "&\u{0301}", "e\u{0301}", "\u{1F600}", "\u{1F469}\u{200D}\u{1F469}\u{200D}\u{1F467}",
        "\u{1F1FA}\u{1F1F8}", "\u{1F44D}\u{1F3FD}", "ﷺ", "\u{0000}", "\u{FFFD}", "\u{10FFFF}",
        "…", "–", "·", "’", "ß", "İ", "Ω", "ǅ", "٣", "１", "Ⅻ", "alice", "Björk", "Sigur Rós", "AC/DC",
    ]
}
