/// Text on its way to a terminal.
enum TerminalText {
    /// `text` with control characters shown as `\u{…}` escapes, so that an escape sequence
    /// a person typed, or a name Last.fm returned, is shown rather than obeyed by the
    /// terminal. Line breaks and tabs stay.
    static func printable(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar.properties.generalCategory == .control, scalar != "\n", scalar != "\t" {
                out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }
}
