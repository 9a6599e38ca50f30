import Telegram

/// Stops the process with a message libFuzzer reports next to the input that caused it.
public func violated(_ what: String, _ details: @autoclosure () -> String = "") -> Never {
    let text = details()
    fatalError("INVARIANT VIOLATED: \(what)\(text.isEmpty ? "" : "\n\(excerpt(text))")")
}

/// Checks what every reply sent with `parse_mode=HTML` must satisfy: Telegram takes the HTML
/// (`TelegramHTML.problem(in:)` is nil) and it fits one message (at most 4096 UTF-16 units).
public func checkTelegramMessage(_ html: String, _ context: @autoclosure () -> String) {
    if let problem = TelegramHTML.problem(in: html) {
        violated("\(context()): Telegram would reject the HTML: \(problem)", "html: \(html.debugDescription)")
    }
    if html.utf16.count > 4096 {
        violated("\(context()): \(html.utf16.count) UTF-16 units, more than 4096", "html: \(html.debugDescription)")
    }
}

/// Whether the scalars of `needle` occur, in a row, in the scalars of `haystack`: a search that
/// Unicode's grapheme rules cannot hide a `<b>` from.
public func containsScalars(_ haystack: String, _ needle: String) -> Bool {
    let hay = Array(haystack.unicodeScalars)
    let pin = Array(needle.unicodeScalars)
    guard !pin.isEmpty, hay.count >= pin.count else { return pin.isEmpty }
    for start in 0...(hay.count - pin.count) where hay[start] == pin[0] {
        if hay[start..<(start + pin.count)].elementsEqual(pin) { return true }
    }
    return false
}

/// At most a few thousand characters of `text`, so a crash report stays readable.
public func excerpt(_ text: String, limit: Int = 3000) -> String {
    text.count <= limit ? text : String(text.prefix(limit)) + "… (\(text.count) characters)"
}
