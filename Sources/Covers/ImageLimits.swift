/// How large a cover may be before it is decoded.
///
/// The defaults allow any real album art (usually 300–1200 px, sometimes 3000 px) while
/// keeping one decoded image under about 64 MB (4 bytes per pixel).
public struct ImageLimits: Sendable, Hashable {
    /// Most pixels (`width × height`) an image may declare.
    public var maxPixels: Int
    /// Longest width or height an image may declare.
    public var maxSide: Int
    /// Largest encoded body accepted.
    public var maxBytes: Int

    public init(maxPixels: Int = 4096 * 4096, maxSide: Int = 8192, maxBytes: Int = 16 * 1024 * 1024) {
        self.maxPixels = maxPixels
        self.maxSide = maxSide
        self.maxBytes = maxBytes
    }

    /// Whether a decoder may be asked to allocate an image of this size.
    public func allows(_ dimensions: ImageDimensions) -> Bool {
        dimensions.width > 0 && dimensions.height > 0
            && dimensions.width <= maxSide && dimensions.height <= maxSide
            && dimensions.pixelCount <= maxPixels
    }
}
