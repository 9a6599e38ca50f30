import CGD
import Foundation

/// Sole owner of one libgd image: `deinit` destroys it, so every path out of a render,
/// thrown errors included, frees it exactly once.
///
/// Not `Sendable`: an image lives and dies inside one synchronous render.
final class GDImage {
    let pointer: gdImagePtr
    /// The library that made the image, and that draws on it.
    let gd: LibGD

    private init(taking pointer: gdImagePtr, from gd: LibGD) {
        self.pointer = pointer
        self.gd = gd
    }

    deinit {
        gd.destroy(pointer)
    }

    var width: Int { Int(pointer.pointee.sx) }
    var height: Int { Int(pointer.pointee.sy) }

    /// A true-colour canvas, or `nil` if libgd is missing or cannot allocate it.
    static func canvas(width: Int, height: Int) -> GDImage? {
        guard case let .success(gd) = LibGD.shared, width > 0, height > 0,
              let width = Int32(exactly: width), let height = Int32(exactly: height),
              let pointer = gd.createTrueColor(width, height)
        else { return nil }
        return GDImage(taking: pointer, from: gd)
    }

    /// Decodes a cover, but only after `ImageInfo` has checked its bytes and declared size.
    static func decode(_ data: Data, limits: ImageLimits = ImageLimits()) throws(CoverError) -> GDImage {
        let info = try ImageInfo(inspecting: data, limits: limits)
        guard ImageFormat.decodable.contains(info.format) else { throw .decoderUnavailable(info.format) }
        guard let image = decodeUnchecked(data, as: info.format) else { throw .decodeFailed(info.format) }
        // The decoder read the same header as the inspection; if the two parsers disagree about
        // the size, the file is ambiguous and the limits may not have applied: refuse it.
        guard image.width == info.dimensions.width, image.height == info.dimensions.height else {
            throw .decodeFailed(info.format)
        }
        return image
    }

    /// libgd's decoder alone, with no checks: for data this module made itself, or has checked.
    static func decodeUnchecked(_ data: Data, as format: ImageFormat) -> GDImage? {
        guard case let .success(gd) = LibGD.shared, let size = Int32(exactly: data.count), size > 0 else { return nil }
        // libgd only reads the buffer but takes a mutable `void *`: hand it a private copy.
        var bytes = [UInt8](data)
        let pointer: gdImagePtr? = bytes.withUnsafeMutableBytes { buffer in
            switch format {
            case .jpeg: gd.createFromJpeg(size, buffer.baseAddress)
            case .png: gd.createFromPng(size, buffer.baseAddress)
            case .webp: gd.createFromWebp(size, buffer.baseAddress)
            }
        }
        return pointer.map { GDImage(taking: $0, from: gd) }
    }

    /// The image encoded as `format` (JPEG at `quality`, 1–100), or `nil` if libgd cannot.
    func encoded(as format: ImageFormat, quality: Int = 85) -> Data? {
        var size: Int32 = 0
        let buffer: UnsafeMutableRawPointer? = switch format {
        case .jpeg: gd.jpeg(pointer, &size, Int32(clamping: quality))
        case .png: gd.png(pointer, &size)
        case .webp: gd.webp(pointer, &size)
        }
        guard let buffer else { return nil }
        // libgd allocated the buffer; only gdFree may release it.
        defer { gd.free(buffer) }
        guard size > 0 else { return nil }
        return Data(bytes: buffer, count: Int(size))
    }

    /// The colour at (x, y), alpha dropped.
    func color(x: Int, y: Int) -> RGBColor {
        RGBColor(packed: gd.trueColorPixel(pointer, Int32(x), Int32(y)))
    }

    /// Paints `rect`.
    func fill(_ rect: PixelRect, with color: RGBColor) {
        guard !rect.isEmpty else { return }
        gd.filledRectangle(pointer, Int32(rect.x), Int32(rect.y), Int32(rect.maxX - 1), Int32(rect.maxY - 1), color.packed)
    }

    /// Draws `source` over `rect`, scaled to fill it and centre-cropped to its aspect ratio,
    /// so a non-square cover keeps its proportions instead of being stretched.
    func drawFilling(_ rect: PixelRect, with source: GDImage) {
        guard !rect.isEmpty, source.width > 0, source.height > 0 else { return }
        if source.width == rect.width, source.height == rect.height {
            // Already the right size (Last.fm's 300 px covers in a 3×3 cell): a plain copy is exact
            // and much cheaper than resampling.
            gd.copy(pointer, source.pointer, Int32(rect.x), Int32(rect.y), 0, 0, Int32(rect.width), Int32(rect.height))
            return
        }
        // The largest source region with the rect's aspect ratio, centred.
        var cropWidth = source.width
        var cropHeight = cropWidth * rect.height / rect.width
        if cropHeight > source.height {
            cropHeight = source.height
            cropWidth = max(1, cropHeight * rect.width / rect.height)
        }
        let cropX = (source.width - cropWidth) / 2
        let cropY = (source.height - cropHeight) / 2
        gd.copyResampled(
            pointer, source.pointer,
            Int32(rect.x), Int32(rect.y), Int32(cropX), Int32(cropY),
            Int32(rect.width), Int32(rect.height), Int32(cropWidth), Int32(max(1, cropHeight))
        )
    }
}

/// An axis-aligned rectangle of whole pixels.
struct PixelRect: Hashable {
    var x: Int
    var y: Int
    var width: Int
    var height: Int

    var maxX: Int { x + width }
    var maxY: Int { y + height }
    var isEmpty: Bool { width <= 0 || height <= 0 }
}
