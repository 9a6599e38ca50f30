/// Reads a `.env` file the way people write them: Windows line endings and a byte-order
/// mark, `export KEY=value`, quoted values, and `# comments` after a value. The result feeds
/// swift-configuration's environment provider, which keeps secrets redacted.
public enum EnvironmentFile {
    /// What a file says: its variables, and the lines that say nothing the bot can use.
    public struct Contents: Sendable, Equatable {
        /// Later lines win.
        public var variables: [String: String]
        /// Line numbers (from 1) of lines that are neither blank, a comment, nor `KEY=value`.
        public var ignoredLines: [Int]
    }

    /// The variables and the ignored lines of a file's text.
    public static func parse(_ text: String) -> Contents {
        var contents = Contents(variables: [:], ignoredLines: [])
        // Windows editors may start the file with a byte-order mark, which would otherwise
        // become part of the first key.
        var text = Substring(text)
        if text.unicodeScalars.first == "\u{FEFF}" { text = Substring(text.unicodeScalars.dropFirst()) }
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
        for (index, rawLine) in lines.enumerated() {
            var line = rawLine.trimmingWhitespace()
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            if line.hasPrefix("export ") || line.hasPrefix("export\t") { line = line.dropFirst(7).trimmingWhitespace() }
            guard let equals = line.firstIndex(of: "="), !line[..<equals].trimmingWhitespace().isEmpty else {
                contents.ignoredLines.append(index + 1)
                continue
            }
            let key = line[..<equals].trimmingWhitespace()
            contents.variables[String(key)] = value(line[line.index(after: equals)...].trimmingWhitespace())
        }
        return contents
    }

    /// A value without its quotes, or without a trailing ` # comment` when unquoted.
    private static func value(_ text: Substring) -> String {
        if let quote = text.first, quote == "\"" || quote == "'" {
            let rest = text.dropFirst()
            if let end = rest.firstIndex(of: quote) { return String(rest[..<end]) }
            return String(text)
        }
        // A `#` starts a comment only after whitespace, so `abc#1` keeps its `#`.
        var previous: Character = " "
        for index in text.indices {
            if text[index] == "#", previous == " " || previous == "\t" {
                return String(text[..<index].trimmingWhitespace())
            }
            previous = text[index]
        }
        return String(text)
    }

    /// `key` as a person can read it in a warning: characters that show as nothing or as a
    /// space (a zero-width space, a no-break space) are written as `\u{…}`, so that a key
    /// that looks like a known one shows why it is not.
    public static func visible(_ key: String) -> String {
        var out = ""
        for scalar in key.unicodeScalars {
            if scalar.isASCII, scalar.value > 0x20, scalar.value < 0x7F {
                out.unicodeScalars.append(scalar)
            } else if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                out.unicodeScalars.append(scalar)
            } else {
                out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            }
        }
        return out
    }
}

extension Substring {
    func trimmingWhitespace() -> Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
