/// A catalog's format string, split once when it is loaded into literal text and
/// placeholders: `%@` (text) and `%ld` (a number), each optionally numbered (`%2$@`) so that a
/// translation can reorder them; `%%` is a percent sign.
struct Template: Sendable, Equatable {
    enum Piece: Sendable, Equatable {
        case literal(String)
        /// The argument at this index (from 0).
        case text(Int)
        case number(Int)
    }

    let pieces: [Piece]

    init(pieces: [Piece]) {
        self.pieces = pieces
    }

    /// Splits `format`. Nothing is lost: an unknown `%x` stays in the text as it is.
    init(_ format: String) {
        var pieces: [Piece] = []
        var literal = ""
        var next = 0
        var rest = Substring(format)
        while let percent = rest.firstIndex(of: "%") {
            literal += rest[..<percent]
            rest = rest[rest.index(after: percent)...]
            if rest.first == "%" {
                literal.append("%")
                rest = rest.dropFirst()
                continue
            }
            var index = next
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            if !digits.isEmpty, rest.dropFirst(digits.count).first == "$", let position = Int(digits) {
                index = position - 1
                rest = rest.dropFirst(digits.count + 1)
            }
            let piece: Piece
            if rest.hasPrefix("@") {
                piece = .text(index)
                rest = rest.dropFirst()
            } else if let length = ["lld", "ld", "d"].first(where: { rest.hasPrefix($0) })?.count {
                piece = .number(index)
                rest = rest.dropFirst(length)
            } else {
                literal.append("%")
                continue
            }
            if !literal.isEmpty { pieces.append(.literal(literal)) }
            literal = ""
            pieces.append(piece)
            next = index + 1
        }
        literal += rest
        if !literal.isEmpty { pieces.append(.literal(literal)) }
        self.pieces = pieces
    }

    /// What a translation must keep: each placeholder's index and kind.
    var placeholders: [String] {
        pieces.compactMap { piece in
            switch piece {
            case .literal: nil
            case .text(let index): "\(index + 1)$@"
            case .number(let index): "\(index + 1)$ld"
            }
        }.sorted()
    }

    /// The text with `arguments` put in, numbers already written as the language writes
    /// them; a missing argument leaves nothing.
    ///
    /// - Parameter escape: applied to the literal text only, for arguments already in markup.
    func filled(_ arguments: [String], escapingLiterals escape: ((String) -> String)? = nil) -> String {
        if escape == nil, pieces.count == 1, case .literal(let only) = pieces[0] { return only }
        var out = ""
        for piece in pieces {
            switch piece {
            case .literal(let text): out += escape?(text) ?? text
            case .text(let index), .number(let index): if arguments.indices.contains(index) { out += arguments[index] }
            }
        }
        return out
    }

    /// The pseudo-locale's version: every letter accented, every literal a third longer.
    var pseudo: Template {
        Template(pieces: pieces.map { piece in
            guard case .literal(let text) = piece else { return piece }
            let accented = String(String.UnicodeScalarView(text.unicodeScalars.map { Self.accents[$0] ?? $0 }))
            return .literal(accented + String(repeating: "·", count: (text.count + 2) / 3))
        })
    }

    private static let accents: [Unicode.Scalar: Unicode.Scalar] = {
        let plain = "aeiouycnsAEIOUYCNS".unicodeScalars
        let marked = "áéíóúýçñšÁÉÍÓÚÝÇÑŠ".unicodeScalars
        return Dictionary(uniqueKeysWithValues: zip(plain, marked))
    }()
}
