import Foundation

/// The pixel size an image declares in its header, read without decoding it.
///
/// Knowing the size first lets a decompression bomb (a small file claiming a huge canvas)
/// be refused before the decoder allocates that canvas.
public struct ImageDimensions: Sendable, Hashable, CustomStringConvertible {
    public let width: Int
    public let height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// `width × height`, saturating: a PNG header may claim 2³²−1 × 2³²−1.
    public var pixelCount: Int {
        let (product, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow ? Int.max : product
    }

    public var description: String { "\(width)×\(height)" }

    /// The declared size of `data`, read as `format`; `nil` when the header is malformed or cut short.
    public init?(reading data: Data, as format: ImageFormat) {
        let bytes = ByteReader(data)
        let found: ImageDimensions? = switch format {
        case .png: Self.png(bytes)
        case .jpeg: JPEGHeader(bytes).map { ImageDimensions(width: $0.width, height: $0.height) }
        case .webp: Self.webp(bytes)
        }
        guard let found else { return nil }
        self = found
    }

    /// The declared size of `data`, whichever accepted format it is.
    public init?(reading data: Data) {
        guard let format = ImageFormat(sniffing: data) else { return nil }
        self.init(reading: data, as: format)
    }
}
