import Foundation
import Networking
import Testing

/// `JSONTapeDecoder` reads what `JSONDecoder` reads, the same way, and refuses what it refuses.
@Suite struct JSONTapeDecoderTests {
    private struct Sample: Codable, Equatable {
        var id: Int64
        var name: String
        var score: Double?
        var tags: [String]
        var nested: Nested?
        var flag: Bool
        var small: Int8?
        var unsigned: UInt64?
        var link: URL?

        struct Nested: Codable, Equatable {
            var values: [Int?]
            var deeper: [String: [Bool]]
        }
    }

    private func both<T: Decodable & Equatable>(_ type: T.Type, _ json: String) throws -> T {
        let ours = try JSONTapeDecoder().decode(type, from: Data(json.utf8))
        let foundation = try JSONDecoder().decode(type, from: Data(json.utf8))
        #expect(ours == foundation, "\(json)")
        return ours
    }

    @Test func decodesWhatJSONDecoderDecodes() throws {
        let sample = try both(Sample.self, #"""
            {"id": -9223372036854775808, "name": "caf\u00e9 \ud83c\udfb5 \"q\" \\ \/ \b\f\n\r\t", "score": 1.5e-3,
             "tags": ["a", "", "ü"], "flag": true, "small": -128, "unsigned": 18446744073709551615,
             "nested": {"values": [1, null, 3.0, 1e2], "deeper": {"x": [true, false], "": []}},
             "link": "https://example.com/a?b=c", "unknown": {"ignored": [1, {"deep": null}]}}
            """#)
        #expect(sample.name == "café 🎵 \"q\" \\ / \u{8}\u{c}\n\r\t")
        #expect(sample.nested?.values == [1, nil, 3, 100])
        #expect(try both([Int].self, " [ ] ") == [])
        #expect(try both([String: Int].self, "{}") == [:])
        #expect(try both(Int.self, "0") == 0)
        #expect(try both(Int.self, "-0") == 0)
        #expect(try both(String.self, #""plain""#) == "plain")
        #expect(try both(Double.self, "-2.5E+2") == -250)
        #expect(try both(Bool?.self, "null") == nil)
        #expect(try both([Double].self, "[1,2.25,3e1]") == [1, 2.25, 30])
    }

    @Test func aMissingKeyIsNilForOptionalsAndAnErrorOtherwise() throws {
        struct Needs: Decodable { var id: Int }
        struct Maybe: Decodable, Equatable { var id: Int? }
        #expect(try both(Maybe.self, #"{"other": 1}"#) == Maybe(id: nil))
        #expect(try both(Maybe.self, #"{"id": null}"#) == Maybe(id: nil))
        #expect(throws: DecodingError.self) { try JSONTapeDecoder().decode(Needs.self, from: Data(#"{"other": 1}"#.utf8)) }
        #expect(throws: DecodingError.self) { try JSONTapeDecoder().decode(Needs.self, from: Data(#"{"id": null}"#.utf8)) }
        #expect(throws: DecodingError.self) { try JSONTapeDecoder().decode(Needs.self, from: Data(#"{"id": "7"}"#.utf8)) }
        #expect(throws: DecodingError.self) { try JSONTapeDecoder().decode(Needs.self, from: Data(#"[1]"#.utf8)) }
    }

    @Test func refusesWhatJSONDecoderRefuses() {
        let malformed = [
            "", " ", "{", "[1 2]", "{\"a\" 1}", "{a:1}", "{'a':1}", "01", "-", "1.", ".5", "1e", "1e+",
            "+1", "NaN", "Infinity", "tru", "nul", "\"abc", "\"a\u{01}b\"", #""\x""#, #""\u12g4""#, #""\u123""#, "[1]]", "1 2",
            "{\"a\":1}}", "[", "]", "\u{feff}", "\"\\\"", "{\"a\":}", "{,}",
        ]
        for text in malformed {
            #expect(throws: DecodingError.self, "\(text.debugDescription)") { try JSONTapeDecoder().decode(JSONAny.self, from: Data(text.utf8)) }
            #expect(throws: (any Error).self, "\(text.debugDescription)") { try JSONDecoder().decode(JSONAny.self, from: Data(text.utf8)) }
        }
    }

    /// Plain text is scanned eight bytes at a time: a quote, a backslash or a control
    /// character is found wherever it falls in a word, and so is a multi-byte scalar's edge;
    /// so is the first of two in one word, a control character's borrow marking the next.
    @Test func stringsRoundTripWhereverTheirSpecialBytesFall() throws {
        for special in ["\"", "\\", "\n", "\u{1}", "\u{1F}", "é", "🎵", "<", "\u{1}\"", "\u{0}!", "\"\u{1}", "\u{1F}\\", "é\""] {
            for length in 0...20 {
                for position in 0...length {
                    var text = String(repeating: "a", count: length)
                    text.insert(contentsOf: special, at: text.index(text.startIndex, offsetBy: position))
                    let quoted = JSONString.quoted(text)
                    #expect(try JSONDecoder().decode(String.self, from: Data(quoted.utf8)) == text, "\(quoted)")
                    #expect(try JSONTapeDecoder().decode(String.self, from: Data(quoted.utf8)) == text, "\(quoted)")
                }
            }
        }
        // A raw control character is refused wherever it falls.
        for position in 0..<17 {
            var bytes = Array("\"".utf8) + [UInt8](repeating: UInt8(ascii: "b"), count: 16) + Array("\"".utf8)
            bytes[1 + position] = 0x1F
            #expect(throws: DecodingError.self) { try JSONTapeDecoder().decode(String.self, from: Data(bytes)) }
        }
    }

    @Test func aTrailingCommaIsRefusedAsRFC8259Says() {
        // JSONDecoder lets these by; no API the bot reads sends them.
        for text in ["[1,]", "{\"a\":1,}", "[\"a\",]"] {
            #expect(throws: DecodingError.self, "\(text)") { try JSONTapeDecoder().decode(JSONAny.self, from: Data(text.utf8)) }
        }
    }

    @Test func numbersThatDoNotFitAreErrorsNotTraps() throws {
        #expect(throws: DecodingError.self) { try JSONTapeDecoder().decode(Int64.self, from: Data("9223372036854775808".utf8)) }
        #expect(throws: DecodingError.self) { try JSONTapeDecoder().decode(Int64.self, from: Data("-9223372036854775809".utf8)) }
        #expect(throws: DecodingError.self) { try JSONTapeDecoder().decode(UInt8.self, from: Data("256".utf8)) }
        #expect(throws: DecodingError.self) { try JSONTapeDecoder().decode(UInt.self, from: Data("-1".utf8)) }
        #expect(throws: DecodingError.self) { try JSONTapeDecoder().decode(Int.self, from: Data("1.5".utf8)) }
        #expect(throws: DecodingError.self) { try JSONTapeDecoder().decode(Double.self, from: Data("1e400".utf8)) }
        #expect(throws: DecodingError.self) { try JSONTapeDecoder().decode(Float.self, from: Data("1e300".utf8)) }
        #expect(try JSONTapeDecoder().decode(Int.self, from: Data(String(repeating: "0", count: 1).utf8)) == 0)
        #expect(throws: DecodingError.self) { try JSONTapeDecoder().decode(Int.self, from: Data(("1" + String(repeating: "0", count: 5000)).utf8)) }
    }

    @Test func badStringsAreErrors() {
        // A lone surrogate, a high one followed by something else, and bytes that are not UTF-8.
        for text in [#""\ud83c""#, #""\udfb5""#, #""\ud83cx""#, #""\ud83c\u0041""#] {
            #expect(throws: DecodingError.self, "\(text)") { try JSONTapeDecoder().decode(String.self, from: Data(text.utf8)) }
        }
        #expect(throws: DecodingError.self) { try JSONTapeDecoder().decode(String.self, from: Data([0x22, 0xC3, 0x28, 0x22])) }
        #expect(throws: DecodingError.self) { try JSONTapeDecoder().decode(String.self, from: Data([0x22, 0xFF, 0x22])) }
    }

    @Test func deepNestingIsRefusedWithoutRecursion() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: DecodingError.self) { try JSONTapeDecoder().decode(JSONAny.self, from: Data(deep.utf8)) }
        let fine = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        #expect(throws: Never.self) { try JSONTapeDecoder().decode(JSONAny.self, from: Data(fine.utf8)) }
    }

    @Test func aRepeatedKeyYieldsItsFirstValue() throws {
        struct One: Decodable { var a: Int }
        #expect(try JSONTapeDecoder().decode(One.self, from: Data(#"{"a":1,"a":2}"#.utf8)).a == 1)
    }

    @Test func escapedKeysAreMatched() throws {
        struct One: Decodable { var ab: Int }
        #expect(try JSONTapeDecoder().decode(One.self, from: Data(#"{"a\u0062":3}"#.utf8)).ab == 3)
    }

    @Test func aValueKnowsItsSourceText() throws {
        struct Source: Decodable {
            var text: String
            init(from decoder: any Decoder) throws {
                text = String(decoding: (decoder as? any JSONSourceDecoder)?.node.source ?? [], as: UTF8.self)
            }
        }
        let sources = try JSONTapeDecoder().decode([Source].self, from: Data(#"[ {"a": [1, 2]} , "s\"x" ,3.5,null]"#.utf8))
        #expect(sources.map(\.text) == [#"{"a": [1, 2]}"#, #""s\"x""#, "3.5", "null"])
    }

    @Test func userInfoReachesEveryValue() throws {
        let key = CodingUserInfoKey(rawValue: "test")!
        struct Reads: Decodable {
            var seen: Bool
            init(from decoder: any Decoder) throws {
                seen = decoder.userInfo[CodingUserInfoKey(rawValue: "test")!] as? Bool ?? false
            }
        }
        var decoder = JSONTapeDecoder()
        decoder.userInfo[key] = true
        #expect(try decoder.decode([[Reads]].self, from: Data("[[{}]]".utf8))[0][0].seen)
    }
}

/// Any JSON value, to check a document's syntax with either decoder.
private struct JSONAny: Decodable {
    init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            while !array.isAtEnd { _ = try array.decode(JSONAny.self) }
            return
        }
        if let object = try? decoder.container(keyedBy: AnyKey.self) {
            for key in object.allKeys { _ = try object.decode(JSONAny.self, forKey: key) }
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() { return }
        if (try? single.decode(Bool.self)) != nil { return }
        if (try? single.decode(Double.self)) != nil { return }
        _ = try single.decode(String.self)
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
