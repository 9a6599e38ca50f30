import CMalloc
import Foundation

/// Renders a square JPEG grid of album covers: 3×3 when at least five of the first nine tiles
/// have a usable cover, else 2×2 of the first four. Tiles without one get a placeholder.
///
/// `render` runs on a small pool of dedicated queues, never on Swift's cooperative threads,
/// with at most `maxConcurrentRenders` collages at a time; copies of a renderer share its pool.
public struct CollageRenderer: CollageRendering {
    /// Width and height of the collage in pixels.
    public let canvasSide: Int
    /// JPEG quality of the collage, 1–100.
    public let jpegQuality: Int
    /// Checks every cover must pass before it is decoded.
    public let limits: ImageLimits
    let pool: RenderPool

    /// Drawn behind covers with transparency, and in cells left empty when there are fewer
    /// than four tiles.
    static let background = RGBColor(red: 24, green: 24, blue: 27)

    /// - Parameters:
    ///   - canvasSide: the collage's width and height, clamped to 6...4096. The default 900 gives
    ///     300 px cells in 3×3 and 450 px cells in 2×2.
    ///   - jpegQuality: clamped to 1...100.
    ///   - maxConcurrentRenders: collages rendered at once (at least 1); each uses one core.
    public init(
        canvasSide: Int = 900,
        jpegQuality: Int = 85,
        limits: ImageLimits = ImageLimits(),
        maxConcurrentRenders: Int = 2
    ) {
        self.canvasSide = min(max(canvasSide, 6), 4096)
        self.jpegQuality = min(max(jpegQuality, 1), 100)
        self.limits = limits
        self.pool = RenderPool(width: maxConcurrentRenders)
    }

    public var maxConcurrentRenders: Int { pool.width }

    /// JPEG bytes of the collage, rendered off the cooperative pool. Waiting for a free worker
    /// ends with `CancellationError` if the calling task is cancelled; a render already started
    /// runs to its end. Other errors are `CoverError`.
    public func render(_ tiles: [CollageTile]) async throws -> Data {
        try await pool.run { [self] in
            defer { Self.returnFreedMemory() }
            return try renderSync(tiles)
        }
    }

    /// A render allocates a few MB (the canvas, decoded covers) on its worker's malloc arena,
    /// which glibc keeps after they are freed; collages are rare, so the bot hands that memory
    /// back to the system rather than carry it while idle.
    private static func returnFreedMemory() {
        cmalloc_release_free_memory()
    }

    /// JPEG bytes of the collage, rendered on the calling thread (for tests and command-line
    /// tools; a server should call `render`).
    public func renderSync(_ tiles: [CollageTile]) throws(CoverError) -> Data {
        try renderCollage(tiles).jpeg
    }

    /// A collage `render` made, in `format` (a PNG file a person asked for, say), converted on
    /// the calling thread: for command-line tools.
    public static func converted(_ jpeg: Data, to format: ImageFormat) throws(CoverError) -> Data {
        guard format != .jpeg else { return jpeg }
        if case let .failure(error) = LibGD.shared { throw error }
        guard let image = GDImage.decodeUnchecked(jpeg, as: .jpeg) else { throw .decodeFailed(.jpeg) }
        guard let converted = image.encoded(as: format) else { throw .renderFailed }
        return converted
    }

    /// The collage and the grid chosen, for tests.
    func renderCollage(_ tiles: [CollageTile]) throws(CoverError) -> (jpeg: Data, layout: CollageLayout) {
        let shown = Array(tiles.prefix(CollageLayout.threeByThree.capacity))
        guard !shown.isEmpty else { throw .noTiles }
        if case let .failure(error) = LibGD.shared { throw error }
        guard let canvas = GDImage.canvas(width: canvasSide, height: canvasSide) else { throw .renderFailed }
        // Each cover is drawn into its cell as soon as it is decoded, so the canvas and one
        // decoded cover are all the pixels in memory at a time. Cells are first laid out for
        // 3×3, the usual case; when too few covers are usable, the (at most four) usable ones
        // are decoded again for 2×2, which costs less than keeping every cover decoded.
        var layout = CollageLayout.threeByThree
        var usable = draw(shown, on: canvas, in: layout)
        let fitting = CollageLayout(usableCovers: usable.count { $0 })
        if fitting != layout {
            layout = fitting
            usable = draw(shown.indices.map { usable[$0] ? shown[$0] : nil }, on: canvas, in: layout)
        }
        for (index, tile) in shown.prefix(layout.capacity).enumerated() where !usable[index] {
            Placeholder.draw(tile, on: canvas, in: layout.cell(index, side: canvasSide))
        }
        guard let jpeg = canvas.encoded(as: .jpeg, quality: jpegQuality) else { throw .renderFailed }
        return (jpeg, layout)
    }

    /// Clears the canvas and draws the covers of the first tiles that fit `layout`, each
    /// centre-cropped and scaled to its cell. Returns which tiles got one: a bad cover costs
    /// its tile, never the collage. A nil tile is left empty.
    private func draw(_ tiles: [CollageTile?], on canvas: GDImage, in layout: CollageLayout) -> [Bool] {
        canvas.fill(PixelRect(x: 0, y: 0, width: canvasSide, height: canvasSide), with: Self.background)
        return tiles.indices.map { index in
            guard index < layout.capacity, let data = tiles[index]?.image,
                  let cover = try? GDImage.decode(data, limits: limits)
            else { return false }
            canvas.drawFilling(layout.cell(index, side: canvasSide), with: cover)
            return true
        }
    }
}
