import Foundation
import Telegram
import Testing
import TestLogging

@Suite(.capturingLogs) struct JSONValueTests {
    @Test(arguments: [
        "plain", "", "quote \" and backslash \\ and slash /", "line\nbreak\r\ttab", "\u{0}\u{1}\u{1F}\u{7F}",
        "<b>Simon &amp; Garfunkel</b> – Bookends", "👩‍👩‍👧‍👦 e\u{301} \u{202E}RTL", String(repeating: "ü", count: 5000),
    ])
    func requestBodiesReadBackAsTheSameValues(text: String) throws {
        let value = JSONValue.object([
            "text": .string(text), "chat_id": .int(Int64.min), "n": .int(Int64.max), "ok": .bool(true), "none": .null,
            "ratio": .double(0.1), "nested": .array([.object(["k": .string(text)]), .array([]), .object([:])]),
        ])
        let decoded = try JSONDecoder().decode(JSONValue.self, from: Data(value.jsonBytes))
        #expect(decoded == value)
    }

    @Test func numbersJSONCannotHoldBecomeNull() throws {
        let body = JSONValue.array([.double(.nan), .double(.infinity)]).jsonBytes
        #expect(String(decoding: body, as: UTF8.self) == "[null,null]")
    }
}
