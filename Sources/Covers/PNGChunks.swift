import Foundation

/// A walk over a PNG's chunks checking each length and CRC, up to the IEND chunk.
///
/// libpng reports damaged chunks by printing warnings straight to stderr (libgd's quiet error
/// handler does not reach them), and a PNG cut short is only noticed deep in decoding. Both
/// are caught here first, from the bytes alone.
enum PNGChunks {
    enum Verdict: Equatable {
        case complete
        /// The data ends before the IEND chunk.
        case truncated
        /// A chunk's CRC does not match its contents, or its length is out of range.
        case corrupt
    }

    static func verify(_ data: Data) -> Verdict {
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Verdict in
            func u32(_ offset: Int) -> UInt32? {
                guard offset >= 0, offset <= bytes.count - 4 else { return nil }
                return (0..<4).reduce(0) { $0 << 8 | UInt32(bytes[offset + $1]) }
            }
            var offset = 8  // After the signature.
            while true {
                guard let length = u32(offset) else { return .truncated }
                // The spec caps chunk lengths at 2³¹−1.
                guard length <= UInt32(Int32.max) else { return .corrupt }
                let typeStart = offset + 4
                let dataEnd = typeStart + 4 + Int(length)
                guard let stored = u32(dataEnd) else { return .truncated }
                // The CRC covers the chunk type and data, not the length.
                guard crc32(UnsafeRawBufferPointer(rebasing: bytes[typeStart..<dataEnd])) == stored else { return .corrupt }
                if bytes[typeStart] == 0x49, bytes[typeStart + 1] == 0x45, bytes[typeStart + 2] == 0x4E, bytes[typeStart + 3] == 0x44 {
                    return .complete  // "IEND"
                }
                offset = dataEnd + 4
            }
        }
    }

    /// CRC-32 (ISO 3309, as PNG and zlib use it).
    static func crc32(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return crc ^ 0xFFFF_FFFF
    }

    private static let table: [UInt32] = (0..<256).map { index in
        (0..<8).reduce(UInt32(index)) { crc, _ in crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
    }
}
