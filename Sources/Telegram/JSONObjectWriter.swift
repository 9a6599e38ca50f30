import Foundation
import Networking

/// A JSON object written member by member, for the calls made for every reply
/// (`sendMessage`, `sendPhoto`): a dictionary of `JSONValue`s, built and then written, cost
/// more than the rest of the request. Keys are the Bot API's own names, plain ASCII, and
/// are written as they are.
struct JSONObjectWriter {
    private var bytes: [UInt8] = []
    /// Whether the object being written has no member yet (no comma before the next).
    private var empty = true

    /// - Parameter capacity: the bytes to reserve: the object's text plus some.
    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "{"))
    }

    /// Closes the object and returns it.
    consuming func finish() -> Data {
        bytes.append(UInt8(ascii: "}"))
        return Data(bytes)
    }

    mutating func member(_ key: StaticString, _ value: String) {
        name(key)
        JSONString.append(value, to: &bytes)
    }

    mutating func member(_ key: StaticString, _ value: Int64) {
        name(key)
        // Ids of chats and messages fit a small string (15 bytes): no allocation.
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func member(_ key: StaticString, _ value: Bool) {
        name(key)
        value ? append("true") : append("false")
    }

    /// A member whose value is an object, written by `body`.
    mutating func member(_ key: StaticString, object body: (inout JSONObjectWriter) -> Void) {
        name(key)
        bytes.append(UInt8(ascii: "{"))
        empty = true
        body(&self)
        bytes.append(UInt8(ascii: "}"))
        empty = false
    }

    /// An inline keyboard, as `reply_markup` takes it.
    mutating func member(_ key: StaticString, _ keyboard: InlineKeyboard) {
        name(key)
        append(#"{"inline_keyboard":["#)
        for (rowIndex, row) in keyboard.rows.enumerated() {
            if rowIndex > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "["))
            for (index, button) in row.enumerated() {
                append(index > 0 ? #",{"text":"# : #"{"text":"#)
                JSONString.append(button.text, to: &bytes)
                append(#","callback_data":"#)
                JSONString.append(button.callbackData, to: &bytes)
                bytes.append(UInt8(ascii: "}"))
            }
            bytes.append(UInt8(ascii: "]"))
        }
        append("]}")
    }

    /// `"key":`, after a comma unless it is the object's first member.
    private mutating func name(_ key: StaticString) {
        if !empty { bytes.append(UInt8(ascii: ",")) }
        empty = false
        bytes.append(UInt8(ascii: "\""))
        append(key)
        append("\":")
    }

    private mutating func append(_ literal: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }
}
