import CGD
import Covers
import Foundation

/// Test images made and read with libgd directly, independently of the code under test.
enum LibGD {
    /// An image of `width`×`height` filled with `color`, encoded as `format`.
    /// `lossless` and `transparentCorner` select the WebP variants (VP8L, and VP8X with alpha).
    static func solid(
        _ format: ImageFormat, width: Int, height: Int, color: RGBColor,
        lossless: Bool = false, transparentCorner: Bool = false
    ) -> Data {
        columns(format, width: width, height: height, colors: [color], lossless: lossless, transparentCorner: transparentCorner)
    }

    /// Vertical bands of equal width, left to right in `colors`' order.
    static func columns(
        _ format: ImageFormat, width: Int, height: Int, colors: [RGBColor],
        lossless: Bool = false, transparentCorner: Bool = false
    ) -> Data {
        let image = gdImageCreateTrueColor(Int32(width), Int32(height))!
        defer { gdImageDestroy(image) }
        for (index, color) in colors.enumerated() {
            let x0 = width * index / colors.count, x1 = width * (index + 1) / colors.count
            gdImageFilledRectangle(image, Int32(x0), 0, Int32(x1 - 1), Int32(height - 1), packed(color))
        }
        if transparentCorner {
            gdImageAlphaBlending(image, 0)
            gdImageSaveAlpha(image, 1)
            gdImageSetPixel(image, 0, 0, 0x7F00_0000)
        }
        var size: Int32 = 0
        let webpQuality: Int32 = lossless ? 101 : 90  // 101 is libgd's gdWebpLossless.
        let buffer: UnsafeMutableRawPointer?
        switch format {
        case .jpeg: buffer = gdImageJpegPtr(image, &size, 95)
        case .png: buffer = gdImagePngPtr(image, &size)
        case .webp: buffer = gdImageWebpPtrEx(image, &size, webpQuality)
        }
        defer { gdFree(buffer) }
        return Data(bytes: buffer!, count: Int(size))
    }

    /// A palette (not true-colour) PNG of one colour; libgd decodes these to palette images.
    static func palettePNG(width: Int, height: Int, color: RGBColor) -> Data {
        let image = gdImageCreate(Int32(width), Int32(height))!
        defer { gdImageDestroy(image) }
        _ = gdImageColorAllocate(image, Int32(color.red), Int32(color.green), Int32(color.blue))
        var size: Int32 = 0
        let buffer = gdImagePngPtr(image, &size)!
        defer { gdFree(buffer) }
        return Data(bytes: buffer, count: Int(size))
    }

    /// A PNG whose every pixel is fully transparent.
    static func transparentPNG(width: Int, height: Int) -> Data {
        let image = gdImageCreateTrueColor(Int32(width), Int32(height))!
        defer { gdImageDestroy(image) }
        gdImageAlphaBlending(image, 0)
        gdImageSaveAlpha(image, 1)
        gdImageFilledRectangle(image, 0, 0, Int32(width - 1), Int32(height - 1), 0x7FFF_FFFF)
        var size: Int32 = 0
        let buffer = gdImagePngPtr(image, &size)!
        defer { gdFree(buffer) }
        return Data(bytes: buffer, count: Int(size))
    }

    static func packed(_ color: RGBColor) -> Int32 {
        Int32(color.red) << 16 | Int32(color.green) << 8 | Int32(color.blue)
    }
}

/// A JPEG decoded by libgd, for reading back the collage.
final class DecodedJPEG {
    private let image: gdImagePtr

    init?(_ data: Data) {
        var bytes = [UInt8](data)
        guard let image = bytes.withUnsafeMutableBytes({ gdImageCreateFromJpegPtr(Int32($0.count), $0.baseAddress) })
        else { return nil }
        self.image = image
    }

    deinit { gdImageDestroy(image) }

    var width: Int { Int(image.pointee.sx) }
    var height: Int { Int(image.pointee.sy) }

    func color(x: Int, y: Int) -> RGBColor {
        let packed = gdImageGetTrueColorPixel(image, Int32(x), Int32(y))
        return RGBColor(red: UInt8(packed >> 16 & 0xFF), green: UInt8(packed >> 8 & 0xFF), blue: UInt8(packed & 0xFF))
    }
}

extension RGBColor {
    static let scarlet = RGBColor(red: 220, green: 30, blue: 30)
    static let emerald = RGBColor(red: 30, green: 200, blue: 60)
    static let cobalt = RGBColor(red: 30, green: 60, blue: 220)
    static let lemon = RGBColor(red: 240, green: 220, blue: 20)
    static let fuchsia = RGBColor(red: 210, green: 40, blue: 200)
    static let aqua = RGBColor(red: 30, green: 210, blue: 220)
    static let tangerine = RGBColor(red: 245, green: 140, blue: 20)
    static let snow = RGBColor(red: 250, green: 250, blue: 250)
    static let coal = RGBColor(red: 5, green: 5, blue: 5)

    /// Nine colours far apart from each other, for telling tiles apart after JPEG compression.
    static let distinct: [RGBColor] = [.scarlet, .emerald, .cobalt, .lemon, .fuchsia, .aqua, .tangerine, .snow, .coal]

    /// Whether each channel is within `tolerance` (JPEG is lossy).
    func isClose(to other: RGBColor, tolerance: Int = 16) -> Bool {
        abs(Int(red) - Int(other.red)) <= tolerance
            && abs(Int(green) - Int(other.green)) <= tolerance
            && abs(Int(blue) - Int(other.blue)) <= tolerance
    }
}

/// A deterministic byte generator for fuzz-style tests (xorshift64*).
struct TestBytes {
    private var state: UInt64

    init(seed: UInt64) { state = seed | 1 }

    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }

    mutating func bytes(_ count: Int) -> Data {
        Data((0..<count).map { _ in UInt8(truncatingIfNeeded: next()) })
    }

    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
