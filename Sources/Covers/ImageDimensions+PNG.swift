extension ImageDimensions {
    /// PNG: the IHDR chunk must come first, right after the 8-byte signature;
    /// its data starts with the width and height as big-endian 32-bit numbers.
    static func png(_ bytes: ByteReader) -> ImageDimensions? {
        guard bytes.u32BE(at: 8) == 13, bytes.matches(Array("IHDR".utf8), at: 12),
              let width = bytes.u32BE(at: 16), let height = bytes.u32BE(at: 20)
        else { return nil }
        return ImageDimensions(width: width, height: height)
    }
}
