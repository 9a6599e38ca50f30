@testable import Covers
import Foundation
import Testing

@Suite struct DemoCoverTests {
    @Test func isADeterministicPNGOfTheRequestedSize() throws {
        let first = DemoCover.image(artist: "Portishead", album: "Dummy")
        #expect(first == DemoCover.image(artist: "Portishead", album: "Dummy"))
        #expect(ImageFormat(sniffing: first) == .png)
        #expect(ImageDimensions(reading: first) == ImageDimensions(width: 300, height: 300))
        #expect(ImageDimensions(reading: DemoCover.image(artist: "A", album: "B", side: 120)) == ImageDimensions(width: 120, height: 120))
    }

    @Test func differsBetweenAlbums() {
        let covers = [
            DemoCover.image(artist: "Portishead", album: "Dummy"),
            DemoCover.image(artist: "Portishead", album: "Third"),
            DemoCover.image(artist: "Massive Attack", album: "Mezzanine"),
            DemoCover.image(artist: "Massive", album: "Attack Mezzanine"),
        ]
        #expect(Set(covers).count == covers.count)
    }

    @Test func demoCoversRenderAsCovers() throws {
        let tiles = (1...9).map { CollageTile(rank: $0, image: DemoCover.image(artist: "Artist \($0)", album: "Album \($0)")) }
        let (jpeg, layout) = try CollageRenderer().renderCollage(tiles)
        #expect(layout == .threeByThree)
        #expect(DecodedJPEG(jpeg)?.width == 900)
    }

    /// The hash is FNV-1a, whose published test vectors pin it across processes and machines.
    @Test func stableHashIsFNV1a() {
        var hash = StableHash()
        #expect(hash.value == 0xCBF2_9CE4_8422_2325)
        hash.combine(bytes: Array("a".utf8))
        #expect(hash.value == 0xAF63_DC4C_8601_EC8C)
        var foobar = StableHash()
        foobar.combine(bytes: Array("foobar".utf8))
        #expect(foobar.value == 0x8594_4171_F739_67E8)
    }
}
