import Networking
import Testing

/// Strings read from an API answer: text as it was sent, and nothing for bytes or escapes
/// that are not text (a name made of them is not shown, rather than shown garbled).
@Suite struct JSONStringReadingTests {
    private func string(_ literal: [UInt8]) throws -> String? {
        try JSONNode(parsing: Array(#"{"name":""#.utf8) + literal + Array(#""}"#.utf8))["name"]?.string
    }

    @Test func readsASCIIAndOtherScalarsAsSent() throws {
        #expect(try string(Array("Kid A".utf8)) == "Kid A")
        #expect(try string(Array("Sigur Rós – ( )".utf8)) == "Sigur Rós – ( )")
        #expect(try string(Array("🎵 Björk".utf8)) == "🎵 Björk")
        #expect(try string([]) == "")
    }

    @Test func readsEscapes() throws {
        #expect(try string(Array(#"R\u00f3s \"live\"\n\ud83c\udfb5"#.utf8)) == "Rós \"live\"\n🎵")
    }

    @Test(arguments: [
        [0xFF] as [UInt8], // never in UTF-8
        [0x41, 0xC3], // a sequence cut short
        [0xE0, 0x80, 0x80], // an overlong form
        [0xED, 0xA0, 0x80], // a surrogate written as UTF-8
        Array(#"a\ud800b"#.utf8), // a lone surrogate escaped
        [0xFF] + Array(#"\n"#.utf8), // escaped, and not UTF-8 either
    ])
    func bytesThatAreNotTextReadAsNoString(_ bytes: [UInt8]) throws {
        #expect(try string(bytes) == nil)
    }
}
