@testable import Covers
import Foundation
import Testing

@Suite struct CollageRendererTests {
    let renderer = CollageRenderer()

    static func covers(_ colors: [RGBColor], format: ImageFormat = .jpeg, side: Int = 48) -> [CollageTile] {
        colors.enumerated().map { index, color in
            CollageTile(rank: index + 1, image: LibGD.solid(format, width: side, height: side, color: color))
        }
    }

    /// The colour at the middle of cell `index` of `layout` (row-major).
    static func cellCentre(_ image: DecodedJPEG, _ index: Int, _ layout: CollageLayout) -> RGBColor {
        let cell = layout.cell(index, side: 900)
        return image.color(x: cell.x + cell.width / 2, y: cell.y + cell.height / 2)
    }

    @Test func nineCoversMakeA900PixelThreeByThreeJPEGInRankOrder() throws {
        let (jpeg, layout) = try renderer.renderCollage(Self.covers(RGBColor.distinct))
        #expect(layout == .threeByThree)
        #expect(ImageFormat(sniffing: jpeg) == .jpeg)
        let image = try #require(DecodedJPEG(jpeg))
        #expect(image.width == 900 && image.height == 900)
        #expect(image.color(x: 150, y: 150).isClose(to: .scarlet))
        #expect(image.color(x: 5, y: 5).isClose(to: .scarlet))
        for (index, color) in RGBColor.distinct.enumerated() {
            #expect(Self.cellCentre(image, index, .threeByThree).isClose(to: color), "cell \(index)")
        }
    }

    @Test func mixedFormatsAndSizesAllDrawn() throws {
        let tiles = ImageFormat.allCases.enumerated().flatMap { offset, format in
            (0..<3).map { row in
                let color = RGBColor.distinct[offset * 3 + row]
                return CollageTile(rank: offset * 3 + row + 1, image: LibGD.solid(format, width: 20 + 300 * row, height: 40, color: color))
            }
        }
        let (jpeg, layout) = try renderer.renderCollage(tiles)
        #expect(layout == .threeByThree)
        let image = try #require(DecodedJPEG(jpeg))
        for (index, tile) in tiles.enumerated() {
            let expected = RGBColor.distinct[index]
            #expect(Self.cellCentre(image, index, .threeByThree).isClose(to: expected, tolerance: 24), "tile \(tile.rank)")
        }
    }

    @Test func fourCoversAndFivePlaceholdersMakeATwoByTwo() throws {
        let tiles = Self.covers([.scarlet, .emerald, .cobalt, .lemon])
            + (5...9).map { CollageTile(rank: $0, image: nil) }
        let (jpeg, layout) = try renderer.renderCollage(tiles)
        #expect(layout == .twoByTwo)
        let image = try #require(DecodedJPEG(jpeg))
        #expect(image.width == 900 && image.height == 900)
        for (index, color) in [RGBColor.scarlet, .emerald, .cobalt, .lemon].enumerated() {
            #expect(Self.cellCentre(image, index, .twoByTwo).isClose(to: color), "cell \(index)")
        }
    }

    @Test func fiveUsableCoversMakeAThreeByThreeWithPlaceholdersInPlace() throws {
        var tiles = Self.covers(RGBColor.distinct)
        // Ranks 2, 5, 7 and 9 lose their covers in different ways.
        tiles[1].image = nil
        tiles[4].image = Data("<html>gone</html>".utf8)
        tiles[6].image = tiles[6].image!.prefix(100)
        tiles[8].image = ImageDimensionsTests.pngHeader(width: 30000, height: 30000)
        let (jpeg, layout) = try renderer.renderCollage(tiles)
        #expect(layout == .threeByThree)
        let image = try #require(DecodedJPEG(jpeg))
        for index in [1, 4, 6, 8] {
            let cell = CollageLayout.threeByThree.cell(index, side: 900)
            let corner = image.color(x: cell.x + 8, y: cell.y + 8)
            #expect(corner.isClose(to: Placeholder.color(for: tiles[index]), tolerance: 8), "placeholder \(index)")
        }
        for index in [0, 2, 3, 5, 7] {
            #expect(Self.cellCentre(image, index, .threeByThree).isClose(to: RGBColor.distinct[index]), "cover \(index)")
        }
    }

    @Test func allPlaceholdersWork() throws {
        let tiles = (1...9).map { CollageTile(rank: $0, image: nil) }
        let (jpeg, layout) = try renderer.renderCollage(tiles)
        #expect(layout == .twoByTwo)
        let image = try #require(DecodedJPEG(jpeg))
        #expect(image.width == 900 && image.height == 900)
        for index in 0..<4 {
            let cell = CollageLayout.twoByTwo.cell(index, side: 900)
            let background = Placeholder.color(for: tiles[index])
            #expect(image.color(x: cell.x + 10, y: cell.y + 10).isClose(to: background, tolerance: 8))
            // The rank is drawn in the middle: near-white ink somewhere on the centre row.
            let centreRow = (cell.x..<cell.maxX).map { image.color(x: $0, y: cell.y + cell.height / 2) }
            #expect(centreRow.contains { $0.isClose(to: Placeholder.ink, tolerance: 24) })
        }
    }

    @Test func placeholderColourFollowsTheLabelWhenThereIsOne() {
        let byRank = Placeholder.color(for: CollageTile(rank: 3, image: nil))
        #expect(byRank == Placeholder.color(for: CollageTile(rank: 3, image: nil)))
        #expect(byRank != Placeholder.color(for: CollageTile(rank: 4, image: nil)))
        let labelled = Placeholder.color(for: CollageTile(rank: 3, image: nil, label: "Blue Lines"))
        #expect(labelled == Placeholder.color(for: CollageTile(rank: 8, image: nil, label: "Blue Lines")))
        #expect(labelled != Placeholder.color(for: CollageTile(rank: 3, image: nil, label: "Mezzanine")))
    }

    @Test func nonSquareCoversAreCentreCropped() throws {
        // A 3:1 cover of red | green | blue bands: filling a square cell keeps only the green middle.
        var tiles = Self.covers(Array(RGBColor.distinct.dropFirst()))
        tiles.insert(CollageTile(rank: 0, image: LibGD.columns(.png, width: 600, height: 200, colors: [.scarlet, .emerald, .cobalt])), at: 0)
        let image = try #require(DecodedJPEG(try renderer.renderSync(tiles)))
        for x in [6, 150, 293] {
            #expect(image.color(x: x, y: 150).isClose(to: .emerald), "x \(x)")
        }
    }

    @Test func paletteAndTransparentCoversAreDrawn() throws {
        let tiles = [
            CollageTile(rank: 1, image: LibGD.palettePNG(width: 40, height: 40, color: .fuchsia)),
            CollageTile(rank: 2, image: LibGD.transparentPNG(width: 40, height: 40)),
        ]
        let image = try #require(DecodedJPEG(try renderer.renderSync(tiles)))
        #expect(image.color(x: 225, y: 225).isClose(to: .fuchsia))
        // Transparency shows the dark background, not black or garbage.
        #expect(image.color(x: 675, y: 225).isClose(to: CollageRenderer.background, tolerance: 8))
    }

    @Test func fewerThanFourTilesLeaveTheRestEmpty() throws {
        let (jpeg, layout) = try renderer.renderCollage(Self.covers([.scarlet]))
        #expect(layout == .twoByTwo)
        let image = try #require(DecodedJPEG(jpeg))
        #expect(image.color(x: 225, y: 225).isClose(to: .scarlet))
        #expect(image.color(x: 675, y: 675).isClose(to: CollageRenderer.background, tolerance: 8))
    }

    @Test func noTilesIsAnError() {
        #expect(throws: CoverError.noTiles) { try renderer.renderSync([]) }
    }

    @Test func onlyTheFirstNineTilesAreShown() throws {
        let tiles = Self.covers(RGBColor.distinct + [.scarlet, .scarlet, .scarlet])
        let (jpeg, layout) = try renderer.renderCollage(tiles)
        #expect(layout == .threeByThree)
        let image = try #require(DecodedJPEG(jpeg))
        #expect(Self.cellCentre(image, 8, .threeByThree).isClose(to: .coal))
    }

    @Test func asyncRenderMatchesSyncRender() async throws {
        let renderer = CollageRenderer(canvasSide: 300)
        let tiles = Self.covers(RGBColor.distinct)
        let expected = try renderer.renderSync(tiles)
        #expect(try await renderer.render(tiles) == expected)
    }

    @Test func concurrentRendersAllComplete() async throws {
        // Small collages: this checks that every call completes with the right bytes; the bound
        // on concurrency itself is proved in `RenderPoolTests`.
        let renderer = CollageRenderer(canvasSide: 240, maxConcurrentRenders: 2)
        #expect(renderer.maxConcurrentRenders == 2)
        let tiles = Self.covers(RGBColor.distinct)
        let expected = try renderer.renderSync(tiles)
        let results = try await withThrowingTaskGroup(of: Data.self) { group in
            for _ in 0..<6 {
                group.addTask { try await renderer.render(tiles) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 6)
        #expect(results.allSatisfy { $0 == expected })
    }

    @Test func aRendererCanBeUsedThroughTheProtocol() async throws {
        let rendering: any CollageRendering = renderer
        let jpeg = try await rendering.render([CollageTile(rank: 1, image: nil)])
        #expect(ImageFormat(sniffing: jpeg) == .jpeg)
    }

    /// `throwback --collage week.png` gets a PNG of the same picture.
    @Test func aCollageConvertsToAPNGOfTheSameSizeAndJPEGStaysAsItIs() throws {
        let jpeg = try renderer.renderSync(Self.covers(RGBColor.distinct))
        let png = try CollageRenderer.converted(jpeg, to: .png)
        let info = try ImageInfo(inspecting: png)
        #expect(info.format == .png)
        #expect(info.dimensions == ImageDimensions(width: 900, height: 900))
        #expect(try CollageRenderer.converted(jpeg, to: .jpeg) == jpeg)
    }
}
