import Covers
import Foundation
import Testing

@Suite struct ImageFormatTests {
    @Test(arguments: ImageFormat.allCases)
    func sniffsImagesMadeByLibGD(_ format: ImageFormat) {
        let data = LibGD.solid(format, width: 8, height: 8, color: .scarlet)
        #expect(ImageFormat(sniffing: data) == format)
    }

    @Test func sniffsBySignatureAlone() {
        #expect(ImageFormat(sniffing: Data([0xFF, 0xD8, 0xFF, 0xE0])) == .jpeg)
        #expect(ImageFormat(sniffing: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])) == .png)
        #expect(ImageFormat(sniffing: Data("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)) == .webp)
    }

    @Test func refusesEverythingElse() {
        let refused: [Data] = [
            Data(),
            Data("<!DOCTYPE html><html><body>404 Not Found</body></html>".utf8),
            Data("<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8),
            Data("GIF89a\u{1}\u{0}\u{1}\u{0}".utf8),
            Data("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt ".utf8),
            Data("RIFF".utf8),
            Data([0xFF, 0xD8]),
            Data([0x89, 0x50, 0x4E, 0x47]),
        ]
        for data in refused {
            #expect(ImageFormat(sniffing: data) == nil)
        }
    }

    @Test func refusesRandomBytes() {
        var random = TestBytes(seed: 42)
        for length in 0..<200 {
            var data = random.bytes(length)
            // Keep the occasional accidental signature out: these are meant to be noise.
            if data.first == 0xFF || data.first == 0x89 || data.first == 0x52 { data[data.startIndex] = 0 }
            #expect(ImageFormat(sniffing: data) == nil)
        }
    }

    @Test func sniffsSlicesOfLargerBuffers() {
        let png = LibGD.solid(.png, width: 4, height: 4, color: .cobalt)
        let padded = Data([1, 2, 3]) + png
        let slice = padded[padded.startIndex + 3..<padded.endIndex]
        #expect(ImageFormat(sniffing: slice) == .png)
        #expect(ImageDimensions(reading: slice) == ImageDimensions(width: 4, height: 4))
    }

    @Test func libGDCanDecodeAllThreeFormats() {
        #expect(ImageFormat.decodable == Set(ImageFormat.allCases))
    }
}
