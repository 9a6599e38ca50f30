/// Rows bound many to one run of a statement: a statement about a chat or a message runs once
/// per batch of them instead of once per row, which is where a burst's writes spent their time
/// (a run costs its binding, its lookup in the prepared statements and SQLite's setup of it,
/// whatever the rows). Batches come in three sizes, so that a connection keeps at most three
/// shapes of each such statement prepared, and the SQL of each shape is written once.
enum StoreBatches {
    /// The sizes, largest first: 30 rows (a flood group) take six runs, not thirty.
    static let sizes = [16, 4, 1]

    /// `values` cut into batches of `sizes`, each as large as what is left allows.
    static func cut<C: Collection>(_ values: C) -> [C.SubSequence] {
        var batches: [C.SubSequence] = []
        var rest = values[...]
        while !rest.isEmpty {
            let size = sizes.first { $0 <= rest.count } ?? 1
            batches.append(rest.prefix(size))
            rest = rest.dropFirst(size)
        }
        return batches
    }

    /// A statement's SQL for each size; `make` writes it for a batch of that many rows.
    static func statements(_ make: (Int) -> String) -> [Int: String] {
        Dictionary(uniqueKeysWithValues: sizes.map { ($0, make($0)) })
    }

    /// `each` (a placeholder, or a row of them) `count` times, separated by commas.
    static func list(_ count: Int, of each: String = "?") -> String {
        Array(repeating: each, count: count).joined(separator: ", ")
    }
}
