// The JSON reader both APIs' answers go through (`JSONNode`, on `JSONTape`), against
// Foundation's `JSONSerialization` as a second opinion, and against the bot's own writer.
import Foundation
import FuzzSupport
import Networking
import Telegram

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let root = try? JSONNode(parsing: bytes) else { return 0 }
    // Strings are checked when read, numbers when converted: a document with a string that
    // is not UTF-8, or a number no Double holds, is JSON the bot reads only in part.
    guard let value = plain(root) else { return 0 }

    // What the tape accepts, Foundation accepts, and reads the same.
    let foundation: Any
    do {
        foundation = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
    } catch {
        violated("JSONNode read a document that Foundation refuses: \(error)", String(decoding: bytes, as: UTF8.self))
    }
    if let difference = compare(root, foundation, path: "$") {
        violated("JSONNode and Foundation read different values: \(difference)", String(decoding: bytes, as: UTF8.self))
    }

    // What the bot writes (`JSONValue.jsonBytes`) reads back the same.
    let written = value.jsonBytes
    guard let back = try? JSONNode(parsing: written), let reread = plain(back) else {
        violated("JSONValue wrote JSON that JSONNode cannot read back", String(decoding: written, as: UTF8.self))
    }
    if reread != value {
        violated("JSONValue's JSON reads back different", "wrote: \(String(decoding: written, as: UTF8.self))")
    }
    // How a request's parameters are read back from the JSON they were written as.
    if JSONValue(node: back) != value {
        violated("JSONValue(node:) reads the bot's own JSON back different", "wrote: \(String(decoding: written, as: UTF8.self))")
    }
    return 0
}

/// The node as a `JSONValue` (objects keep the first of a repeated key, as `JSONNode` does),
/// or nil if some string is not valid text or some number does not fit a Double.
/// Numbers are normalised, so that one value has one form.
private func plain(_ node: JSONNode) -> JSONValue? {
    if node.isNull { return .null }
    if let bool = node.bool { return .bool(bool) }
    if let string = node.string { return .string(string) }
    if node.isArray {
        var elements: [JSONValue] = []
        for element in node.elements {
            guard let value = plain(element) else { return nil }
            elements.append(value)
        }
        return .array(elements)
    }
    if node.isObject {
        var members: [String: JSONValue] = [:]
        for (key, value) in node.members {
            guard let key, let value = plain(value) else { return nil }
            if members[key] == nil { members[key] = value }
        }
        return .object(members)
    }
    // A number as the bot reads it: exactly, if it is an integer that fits; otherwise its
    // nearest Double, which counts as an integer when it is one (`-9223372036854775809`
    // reads as Int64.min, and is written so).
    guard let double = node.double, double.isFinite else { return nil }
    if let integer = node.int64 ?? Int64(exactly: double) { return .int(integer) }
    return .double(double)
}

/// Where `node` and Foundation's reading of the same document differ; nil if nowhere.
private func compare(_ node: JSONNode, _ other: Any, path: String) -> String? {
    if node.isNull { return other is NSNull ? nil : "\(path): null against \(other)" }
    if let bool = node.bool {
        return (other as? NSNumber)?.boolValue == bool ? nil : "\(path): \(bool) against \(other)"
    }
    if let string = node.string {
        guard let theirs = other as? String else { return "\(path): a string against \(other)" }
        return string.unicodeScalars.elementsEqual(theirs.unicodeScalars) ? nil : "\(path): \(string.debugDescription) against \(theirs.debugDescription)"
    }
    if node.isArray {
        guard let theirs = other as? [Any] else { return "\(path): an array against \(other)" }
        let elements = node.elements
        guard elements.count == theirs.count else { return "\(path): \(elements.count) elements against \(theirs.count)" }
        for (offset, (mine, their)) in zip(elements, theirs).enumerated() {
            if let difference = compare(mine, their, path: "\(path)[\(offset)]") { return difference }
        }
        return nil
    }
    if node.isObject {
        guard let theirs = other as? [String: Any] else { return "\(path): an object against \(other)" }
        let members = node.members
        // A repeated key: JSONNode keeps the first, Foundation the last. Both are allowed.
        let keys = members.compactMap(\.key)
        guard Set(keys).count == keys.count else { return nil }
        guard keys.count == theirs.count else { return "\(path): \(keys.count) members against \(theirs.count)" }
        for (key, value) in members {
            guard let key, let their = theirs[key] else { return "\(path): member \(String(describing: key)) missing" }
            if let difference = compare(value, their, path: "\(path).\(key)") { return difference }
        }
        return nil
    }
    guard let number = other as? NSNumber, let double = node.double else { return "\(path): a number against \(other)" }
    if let integer = node.int64, Double(integer) == double, String(cString: number.objCType) != "d" {
        return number.int64Value == integer ? nil : "\(path): \(integer) against \(number)"
    }
    // Foundation may hold a long number as a Decimal: its Double can be off in the last bits.
    let tolerance = max(abs(double), abs(number.doubleValue)) * 1e-12
    return abs(number.doubleValue - double) <= tolerance ? nil : "\(path): \(double) against \(number)"
}

/// The executable's entry point under SwiftPM's name for it; libFuzzer takes over from here.
@_cdecl("FuzzJSON_main")
public func fuzzerEntry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv)
}
