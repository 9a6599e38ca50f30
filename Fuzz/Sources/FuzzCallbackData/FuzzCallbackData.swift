// Year-button callback data: anything a client sends must parse safely, and whatever the bot
// makes for a name must fit Telegram's 64 bytes and read back as the same name and years.
import FuzzSupport
import Throwback

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    // (a) The raw input as callback data from a client.
    checkParsed(String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self))

    // (b) A name and years, as a chart's summary carries them, through the encoder and back.
    var input = FuzzInput(data, size)
    let years = input.int(in: 1...50)
    let name = input.nonEmptyString(maxPieces: 4)
    let data = ButtonData.named(name, years) ?? ButtonData.stored(ButtonData.key(for: name), years)
    checkParsed(data)
    if data.utf8.count > ButtonData.maxBytes {
        violated("callback data of \(data.utf8.count) bytes, over \(ButtonData.maxBytes)", data.debugDescription)
    }
    let expected: ButtonData = ButtonData.named(name, years) != nil
        ? .named(user: name, yearsAgo: years)
        : .stored(key: ButtonData.key(for: name), yearsAgo: years)
    let parsed = ButtonData.parse(data)
    if parsed != expected {
        violated(
            "callback data does not read back",
            "name: \(name.debugDescription) (scalars: \(name.unicodeScalars.map { String($0.value, radix: 16) }))\n"
                + "years: \(years)\ndata: \(data.debugDescription)\nexpected: \(expected)\nparsed: \(String(describing: parsed))"
        )
    }
    return 0
}

/// Whatever parses has years the bot offers and a name or key it could have made.
private func checkParsed(_ data: String) {
    switch ButtonData.parse(data) {
    case .named(let user, let years)?:
        if !(1...50).contains(years) { violated("parsed years \(years) outside 1...50", data.debugDescription) }
        if user.isEmpty { violated("parsed an empty name", data.debugDescription) }
    case .stored(let key, let years)?:
        if !(1...50).contains(years) { violated("parsed years \(years) outside 1...50", data.debugDescription) }
        if key.count != 32 { violated("parsed a key of \(key.count) characters", data.debugDescription) }
    case nil:
        break
    }
}

/// The executable's entry point under SwiftPM's name for it; libFuzzer takes over from here.
@_cdecl("FuzzCallbackData_main")
public func fuzzerEntry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv)
}
