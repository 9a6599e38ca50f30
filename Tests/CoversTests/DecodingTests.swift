@testable import Covers
import Foundation
import Testing

@Suite struct DecodingTests {
    @Test(arguments: ImageFormat.allCases)
    func decodesEachFormat(_ format: ImageFormat) throws {
        let image = try GDImage.decode(LibGD.solid(format, width: 30, height: 20, color: .tangerine))
        #expect(image.width == 30 && image.height == 20)
        #expect(image.color(x: 15, y: 10).isClose(to: .tangerine))
    }

    @Test func refusesATruncatedJPEG() {
        let jpeg = LibGD.columns(.jpeg, width: 64, height: 64, colors: RGBColor.distinct)
        // Cut inside the scan data: libjpeg alone would pad the rest with grey and succeed.
        #expect(throws: CoverError.truncated(.jpeg)) { try GDImage.decode(jpeg.prefix(jpeg.count * 2 / 3)) }
        #expect(throws: CoverError.truncated(.jpeg)) { try GDImage.decode(jpeg.dropLast(2)) }
        // Cut inside the header.
        #expect(throws: CoverError.unreadableHeader(.jpeg)) { try GDImage.decode(jpeg.prefix(40)) }
    }

    @Test func refusesACorruptJPEGWithATypedError() {
        let jpeg = LibGD.solid(.jpeg, width: 32, height: 32, color: .cobalt)
        // The first segment claims to run far past the end of the file.
        var overlong = jpeg
        overlong.replaceSubrange(4..<6, with: [0xFF, 0xF0])
        #expect(throws: CoverError.unreadableHeader(.jpeg)) { try GDImage.decode(overlong) }
        // Garbage where the second marker should be.
        var garbage = jpeg
        let second = 4 + (Int(jpeg[4]) << 8 | Int(jpeg[5]))
        garbage.replaceSubrange(second..<second + 2, with: [0x12, 0x34])
        #expect(throws: CoverError.unreadableHeader(.jpeg)) { try GDImage.decode(garbage) }
        // A well-formed structure with nonsense tables and scan: libjpeg gives up, and so do we.
        let nonsense = Data([0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x00, 0x10, 0x00, 0x10, 0x01, 0x01, 0x11, 0x07])
            + Data([0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00, 0x12, 0x34, 0xFF, 0xD9])
        #expect(throws: CoverError.decodeFailed(.jpeg)) { try GDImage.decode(nonsense) }
    }

    @Test func refusesATruncatedOrDamagedPNGBeforeLibPNGSeesIt() {
        let png = LibGD.columns(.png, width: 64, height: 64, colors: RGBColor.distinct)
        #expect(throws: CoverError.truncated(.png)) { try ImageInfo(inspecting: png.dropLast(1)) }
        #expect(throws: CoverError.truncated(.png)) { try ImageInfo(inspecting: png.prefix(40)) }
        var damaged = png
        damaged[damaged.count / 2] ^= 0x55
        #expect(throws: CoverError.corrupt(.png)) { try ImageInfo(inspecting: damaged) }
        #expect(throws: Never.self) { try ImageInfo(inspecting: png) }
    }

    @Test func refusesATruncatedWebPFromItsRIFFSize() {
        let webp = LibGD.columns(.webp, width: 64, height: 64, colors: RGBColor.distinct)
        #expect(throws: CoverError.truncated(.webp)) { try ImageInfo(inspecting: webp.dropLast(1)) }
        #expect(throws: Never.self) { try ImageInfo(inspecting: webp + Data([0, 0])) }
    }

    @Test func decodesPaletteAndTransparentPNGs() throws {
        let palette = try GDImage.decode(LibGD.palettePNG(width: 16, height: 16, color: .lemon))
        #expect(palette.color(x: 8, y: 8) == .lemon)
        let transparent = try GDImage.decode(LibGD.solid(.png, width: 16, height: 16, color: .lemon, transparentCorner: true))
        #expect(transparent.width == 16)
    }

    @Test func crc32MatchesTheStandardCheckValue() {
        let crc = Array("123456789".utf8).withUnsafeBytes { PNGChunks.crc32($0) }
        #expect(crc == 0xCBF4_3926)
    }

    @Test(arguments: [ImageFormat.png, .webp])
    func refusesTruncatedPNGAndWebP(_ format: ImageFormat) {
        let data = LibGD.columns(format, width: 64, height: 64, colors: RGBColor.distinct)
        #expect(throws: CoverError.self) { try GDImage.decode(data.prefix(data.count / 2)) }
    }

    @Test func refusesWhatIsNotAnImage() {
        #expect(throws: CoverError.unrecognizedFormat) { try GDImage.decode(Data("<html>oops</html>".utf8)) }
        #expect(throws: CoverError.unrecognizedFormat) { try GDImage.decode(Data()) }
    }

    /// Random corruptions of real files go all the way through libgd: each either decodes
    /// or throws a `CoverError`, and nothing crashes.
    @Test func survivesCorruptedFiles() {
        var random = TestBytes(seed: 99)
        let originals = ImageFormat.allCases.map { LibGD.columns($0, width: 24, height: 24, colors: RGBColor.distinct) }
        for _ in 0..<300 {
            var data = originals[random.below(originals.count)]
            for _ in 0...random.below(6) {
                data[random.below(data.count)] = UInt8(truncatingIfNeeded: random.next())
            }
            if random.below(3) == 0 { data = data.prefix(random.below(data.count + 1)) }
            do {
                let image = try GDImage.decode(data)
                #expect(image.width == 24 && image.height == 24)
            } catch {
                // Any typed refusal is fine.
            }
        }
    }
}
