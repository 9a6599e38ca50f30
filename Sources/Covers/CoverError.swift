/// Why a cover image was refused, or why a collage could not be made.
///
/// A refused cover is not fatal to a collage: the renderer draws a placeholder in its place.
public enum CoverError: Error, Sendable, Equatable {
    /// The bytes are not JPEG, PNG or WebP (HTML error pages, GIF, SVG, empty bodies...).
    case unrecognizedFormat
    /// The body is larger than `ImageLimits.maxBytes`.
    case tooManyBytes(Int)
    /// The header is malformed or cut short, so the size cannot be known without decoding.
    case unreadableHeader(ImageFormat)
    /// The declared size is zero, or beyond `ImageLimits` (a decompression bomb, say).
    case tooLarge(width: Int, height: Int)
    /// The file ends before its image data does (a JPEG without its end marker, a PNG without
    /// IEND, a WebP shorter than its RIFF header says).
    case truncated(ImageFormat)
    /// The file's structure is damaged (a PNG chunk whose checksum fails).
    case corrupt(ImageFormat)
    /// This build of libgd cannot read the format.
    case decoderUnavailable(ImageFormat)
    /// libgd refused the image data.
    case decodeFailed(ImageFormat)
    /// `CollageRenderer` was given no tiles at all.
    case noTiles
    /// libgd could not allocate or encode the collage.
    case renderFailed
    /// libgd could not be loaded: the reason, as the dynamic loader gave it.
    case libraryUnavailable(String)
}
