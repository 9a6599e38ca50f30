/// The known word a mistyped one was probably meant to be, for "did you mean" hints: a
/// configuration key, a subcommand.
public enum NearMiss {
    /// The word of `known` closest to `word`, ignoring case, if it is at most `maxDistance`
    /// edits away; by default a third of the word's length, and at least 3.
    public static func of(_ word: String, among known: [String], maxDistance: Int? = nil) -> String? {
        let limit = maxDistance ?? max(3, word.count / 3)
        let candidates = known.map { (name: $0, distance: editDistance(word.uppercased(), $0.uppercased())) }
        guard let best = candidates.min(by: { $0.distance < $1.distance }), best.distance <= limit else { return nil }
        return best.name
    }

    /// Levenshtein distance, by Unicode scalar.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
        guard !a.isEmpty else { return b.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
