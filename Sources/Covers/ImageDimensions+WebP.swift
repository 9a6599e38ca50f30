extension ImageDimensions {
    /// WebP: the first chunk after `RIFF....WEBP` is one of three kinds, each storing
    /// the size differently.
    static func webp(_ bytes: ByteReader) -> ImageDimensions? {
        let payload = 20
        guard let size = bytes.u32LE(at: 16) else { return nil }
        if bytes.matches(Array("VP8 ".utf8), at: 12) {
            // Lossy: a 3-byte frame tag, the start code 9D 01 2A, then 14-bit sizes
            // (the top two bits are scaling hints, not size).
            guard size >= 10, bytes.matches([0x9D, 0x01, 0x2A], at: payload + 3),
                  let width = bytes.u16LE(at: payload + 6), let height = bytes.u16LE(at: payload + 8)
            else { return nil }
            return ImageDimensions(width: width & 0x3FFF, height: height & 0x3FFF)
        }
        if bytes.matches(Array("VP8L".utf8), at: 12) {
            // Lossless: signature 0x2F, then width-1 and height-1 packed in 14 bits each.
            guard size >= 5, bytes.u8(at: payload) == 0x2F, let bits = bytes.u32LE(at: payload + 1) else { return nil }
            return ImageDimensions(width: (bits & 0x3FFF) + 1, height: (bits >> 14 & 0x3FFF) + 1)
        }
        if bytes.matches(Array("VP8X".utf8), at: 12) {
            // Extended: flags and reserved bytes, then canvas width-1 and height-1 in 24 bits each.
            guard size >= 10, let width = bytes.u24LE(at: payload + 4), let height = bytes.u24LE(at: payload + 7)
            else { return nil }
            return ImageDimensions(width: width + 1, height: height + 1)
        }
        return nil
    }
}
