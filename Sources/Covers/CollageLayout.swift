/// The grid of a collage: 3×3 when enough covers are usable to fill most of it,
/// else 2×2, so a week with few covers is not mostly placeholders.
enum CollageLayout: Int, Sendable {
    case twoByTwo = 2
    case threeByThree = 3

    /// The fewest usable covers (among the first nine tiles) for a 3×3 grid.
    static let coversForThreeByThree = 5

    init(usableCovers: Int) {
        self = usableCovers >= Self.coversForThreeByThree ? .threeByThree : .twoByTwo
    }

    var columns: Int { rawValue }
    var capacity: Int { rawValue * rawValue }

    /// The cell at `index` (row-major) of a square canvas of `side` pixels. Edges are rounded
    /// so that cells tile the canvas exactly even when `side` is not a multiple of the columns.
    func cell(_ index: Int, side: Int) -> PixelRect {
        let column = index % columns
        let row = index / columns
        let x0 = side * column / columns
        let x1 = side * (column + 1) / columns
        let y0 = side * row / columns
        let y1 = side * (row + 1) / columns
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}
