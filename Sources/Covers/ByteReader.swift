import Foundation

/// Bounds-checked reads from untrusted bytes: every read answers `nil` past the end
/// instead of trapping, so malformed headers can never crash the parsers.
struct ByteReader {
    private let data: Data

    init(_ data: Data) {
        self.data = data
    }

    var count: Int { data.count }

    /// Whether `length` bytes exist from `offset` on (no overflow for huge offsets).
    func has(_ length: Int, at offset: Int) -> Bool {
        offset >= 0 && length >= 0 && offset <= data.count && length <= data.count - offset
    }

    func u8(at offset: Int) -> UInt8? {
        // `Data` slices do not start at 0, hence the `startIndex` base.
        has(1, at: offset) ? data[data.startIndex + offset] : nil
    }

    func u16BE(at offset: Int) -> Int? {
        guard let a = u8(at: offset), let b = u8(at: offset + 1) else { return nil }
        return Int(a) << 8 | Int(b)
    }

    func u32BE(at offset: Int) -> Int? {
        guard let high = u16BE(at: offset), let low = u16BE(at: offset + 2) else { return nil }
        return high << 16 | low
    }

    func u16LE(at offset: Int) -> Int? {
        guard let a = u8(at: offset), let b = u8(at: offset + 1) else { return nil }
        return Int(b) << 8 | Int(a)
    }

    func u24LE(at offset: Int) -> Int? {
        guard let low = u16LE(at: offset), let c = u8(at: offset + 2) else { return nil }
        return Int(c) << 16 | low
    }

    func u32LE(at offset: Int) -> Int? {
        guard let low = u16LE(at: offset), let high = u16LE(at: offset + 2) else { return nil }
        return high << 16 | low
    }

    func matches(_ expected: [UInt8], at offset: Int) -> Bool {
        guard has(expected.count, at: offset) else { return false }
        for (index, byte) in expected.enumerated() where u8(at: offset + index) != byte {
            return false
        }
        return true
    }

    /// The last offset at or after `start` where `pattern` occurs. Searches from the end
    /// because the markers looked for (a JPEG's end) are normally the last bytes.
    func lastIndex(of pattern: [UInt8], from start: Int) -> Int? {
        guard start >= 0, start <= data.count, !pattern.isEmpty else { return nil }
        let base = data.startIndex
        let range = data.range(of: Data(pattern), options: .backwards, in: (base + start)..<data.endIndex)
        return range.map { $0.lowerBound - base }
    }
}
