import Foundation

/// A cover that passed every check that needs no decoding: its format, its declared size
/// within `ImageLimits`, and a complete file (for PNG, undamaged chunks too).
public struct ImageInfo: Sendable, Hashable {
    public let format: ImageFormat
    public let dimensions: ImageDimensions

    /// Checks `data` from its bytes alone; nothing is decoded or allocated by size.
    public init(inspecting data: Data, limits: ImageLimits = ImageLimits()) throws(CoverError) {
        guard data.count <= limits.maxBytes else { throw .tooManyBytes(data.count) }
        guard let format = ImageFormat(sniffing: data) else { throw .unrecognizedFormat }
        let bytes = ByteReader(data)
        // The JPEG walk is kept: it also tells where the scan data starts, for the end check.
        let jpeg = format == .jpeg ? JPEGHeader(bytes) : nil
        let declared = jpeg.map { ImageDimensions(width: $0.width, height: $0.height) }
            ?? ImageDimensions(reading: data, as: format)
        guard let dimensions = declared else { throw .unreadableHeader(format) }
        // Size first: a bomb is refused whatever else is wrong with it.
        guard limits.allows(dimensions) else { throw .tooLarge(width: dimensions.width, height: dimensions.height) }
        switch format {
        case .jpeg:
            guard let jpeg, jpeg.isComplete(bytes) else { throw .truncated(format) }
        case .png:
            switch PNGChunks.verify(data) {
            case .complete: break
            case .truncated: throw .truncated(format)
            case .corrupt: throw .corrupt(format)
            }
        case .webp:
            // The RIFF header gives the size of everything after its first 8 bytes.
            guard let riffSize = bytes.u32LE(at: 4), riffSize <= data.count - 8 else { throw .truncated(format) }
        }
        self.format = format
        self.dimensions = dimensions
    }
}
