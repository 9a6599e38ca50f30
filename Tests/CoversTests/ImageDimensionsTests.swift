@testable import Covers
import Foundation
import Testing

@Suite struct ImageDimensionsTests {
    /// Width and height differ, so a swapped pair would show.
    static let size = ImageDimensions(width: 37, height: 23)

    @Test(arguments: ImageFormat.allCases)
    func readsTheSizeOfEachFormat(_ format: ImageFormat) {
        let data = LibGD.solid(format, width: Self.size.width, height: Self.size.height, color: .emerald)
        #expect(ImageDimensions(reading: data, as: format) == Self.size)
        #expect(ImageDimensions(reading: data) == Self.size)
    }

    @Test func readsLosslessWebP() {
        let data = LibGD.solid(.webp, width: 37, height: 23, color: .emerald, lossless: true)
        #expect(data.subdata(in: 12..<16) == Data("VP8L".utf8))
        #expect(ImageDimensions(reading: data) == Self.size)
    }

    @Test func readsExtendedWebPWithAlpha() {
        let data = LibGD.solid(.webp, width: 37, height: 23, color: .emerald, transparentCorner: true)
        #expect(data.subdata(in: 12..<16) == Data("VP8X".utf8))
        #expect(ImageDimensions(reading: data) == Self.size)
    }

    @Test func readsACraftedExtendedWebPHeader() {
        // Canvas 5000×3000, stored as width-1 and height-1 in 24-bit little-endian.
        var header = Data("RIFF".utf8) + Data([30, 0, 0, 0]) + Data("WEBPVP8X".utf8) + Data([10, 0, 0, 0])
        header += Data([0, 0, 0, 0]) + Data([0x87, 0x13, 0x00]) + Data([0xB7, 0x0B, 0x00])
        #expect(ImageDimensions(reading: header) == ImageDimensions(width: 5000, height: 3000))
    }

    @Test func readsAJPEGWhoseFrameComesAfterOtherSegments() {
        // SOI, an APP1 segment (with FF D9-looking bytes inside), fill bytes, then SOF2 (progressive).
        var data = Data([0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x06, 0xFF, 0xD9, 0xFF, 0xC0])
        data += Data([0xFF, 0xFF, 0xC2, 0x00, 0x0B, 0x08, 0x01, 0x2C, 0x02, 0x58, 0x01, 0x01, 0x11, 0x00])
        data += Data([0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00, 0x12, 0x34, 0xFF, 0xD9])
        #expect(ImageDimensions(reading: data) == ImageDimensions(width: 600, height: 300))
        #expect(throws: Never.self) { try ImageInfo(inspecting: data) }
    }

    @Test func refusesAPNGBombBeforeDecoding() throws {
        // A valid signature and an IHDR claiming 30000×30000, then junk: were it decoded, libpng
        // would fail on the body (`decodeFailed`) after allocating; `tooLarge` proves it never was.
        let bomb = Self.pngHeader(width: 30000, height: 30000) + Data(repeating: 0xAB, count: 64)
        #expect(ImageDimensions(reading: bomb) == ImageDimensions(width: 30000, height: 30000))
        #expect(throws: CoverError.tooLarge(width: 30000, height: 30000)) { try ImageInfo(inspecting: bomb) }
        #expect(throws: CoverError.tooLarge(width: 30000, height: 30000)) { try GDImage.decode(bomb) }
    }

    @Test func refusesTooManyPixelsEvenWhenEachSideIsAllowed() {
        let wide = Self.pngHeader(width: 8000, height: 8000)
        #expect(throws: CoverError.tooLarge(width: 8000, height: 8000)) { try ImageInfo(inspecting: wide) }
        let allowed = Self.pngHeader(width: 4096, height: 4096, end: true)
        #expect(throws: Never.self) { try ImageInfo(inspecting: allowed) }
    }

    @Test func refusesZeroAndHugeSides() {
        for (width, height) in [(0, 10), (10, 0), (8193, 1), (1, 8193), (Int(UInt32.max), Int(UInt32.max))] {
            #expect(throws: CoverError.tooLarge(width: width, height: height)) {
                try ImageInfo(inspecting: Self.pngHeader(width: width, height: height))
            }
        }
    }

    @Test func refusesAJPEGBomb() {
        // SOF0 claiming 65535×65535.
        let data = Data([0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x0B, 0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x01, 0x11, 0x00])
            + Data([0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00, 0xFF, 0xD9])
        #expect(throws: CoverError.tooLarge(width: 65535, height: 65535)) { try GDImage.decode(data) }
    }

    @Test func honoursCustomLimits() {
        let data = LibGD.solid(.png, width: 100, height: 100, color: .scarlet)
        let small = ImageLimits(maxPixels: 50 * 50)
        #expect(throws: CoverError.tooLarge(width: 100, height: 100)) { try ImageInfo(inspecting: data, limits: small) }
        #expect(throws: CoverError.tooManyBytes(data.count)) {
            try ImageInfo(inspecting: data, limits: ImageLimits(maxBytes: data.count - 1))
        }
    }

    @Test func malformedHeadersGiveNoSize() {
        let png = LibGD.solid(.png, width: 10, height: 10, color: .scarlet)
        let jpeg = LibGD.solid(.jpeg, width: 10, height: 10, color: .scarlet)
        let webp = LibGD.solid(.webp, width: 10, height: 10, color: .scarlet)
        for cut in [0, 1, 8, 15, 20, 23] {
            #expect(ImageDimensions(reading: png.prefix(cut), as: .png) == nil)
        }
        for cut in [0, 2, 3, 4, 10, 19] {
            #expect(ImageDimensions(reading: jpeg.prefix(cut), as: .jpeg) == nil)
            #expect(ImageDimensions(reading: webp.prefix(cut), as: .webp) == nil)
        }
        // A segment length smaller than its own two bytes must not loop or go backwards.
        #expect(ImageDimensions(reading: Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01, 0xFF, 0xC0]), as: .jpeg) == nil)
        #expect(ImageDimensions(reading: Data([0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0xFF]), as: .jpeg) == nil)
        // Endless fill bytes.
        #expect(ImageDimensions(reading: Data([0xFF, 0xD8] + Array(repeating: 0xFF, count: 1000)), as: .jpeg) == nil)
    }

    /// Random bytes behind each valid signature, and random corruptions of real files: the
    /// parsers must answer (a size or `nil`) and never trap.
    @Test func survivesArbitraryBytes() {
        var random = TestBytes(seed: 7)
        let prefixes: [Data] = [
            Data([0xFF, 0xD8, 0xFF]), Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
            Data("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8), Data("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8L".utf8),
            Data("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8X".utf8),
        ]
        for _ in 0..<2000 {
            let data = prefixes[random.below(prefixes.count)] + random.bytes(random.below(64))
            _ = ImageDimensions(reading: data)
            _ = try? ImageInfo(inspecting: data)
        }
        let originals = ImageFormat.allCases.map { LibGD.solid($0, width: 20, height: 12, color: .aqua) }
        for _ in 0..<2000 {
            var data = originals[random.below(originals.count)]
            for _ in 0...random.below(4) {
                data[random.below(min(data.count, 48))] = UInt8(truncatingIfNeeded: random.next())
            }
            _ = ImageDimensions(reading: data.prefix(random.below(data.count + 1)))
            _ = try? ImageInfo(inspecting: data)
        }
    }

    /// The PNG signature and a valid IHDR chunk (8-bit RGB); with `end`, an IEND chunk follows.
    static func pngHeader(width: Int, height: Int, end: Bool = false) -> Data {
        func be32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            let crc = typed.withUnsafeBytes { PNGChunks.crc32($0) }
            return be32(body.count) + typed + be32(Int(crc))
        }
        let header = chunk("IHDR", be32(width) + be32(height) + [8, 2, 0, 0, 0])
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + header + (end ? chunk("IEND", []) : []))
    }
}
