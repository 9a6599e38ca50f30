import CGD

/// The tile drawn for an album without a usable cover: a flat colour chosen from its label's
/// stable hash (or from its rank), with the rank number large and centred.
enum Placeholder {
    /// Near-white digits; every placeholder colour is dark enough for them to read clearly.
    static let ink = RGBColor(red: 246, green: 244, blue: 238)

    /// Twelve deep, muted colours, all dark enough for the near-white digits. A fixed palette,
    /// not random hues, because random dark hues often land on muddy browns and olives.
    static let palette: [RGBColor] = [
        0x2E4A62, 0x7A2E3A, 0x2F5D50, 0x5B3A6E, 0x8A4B2A, 0x2B5F75,
        0x70324F, 0x4A5D2A, 0x3D4F7A, 0x7A5A1E, 0x24574A, 0x5A3F63,
    ].map { RGBColor(red: UInt8($0 >> 16), green: UInt8($0 >> 8 & 0xFF), blue: UInt8($0 & 0xFF)) }

    /// The label's colour from its stable hash; without a label, consecutive ranks step through
    /// the palette by 5 (coprime to 12), so up to twelve neighbours all differ.
    static func color(for tile: CollageTile) -> RGBColor {
        let index: Int
        if let label = tile.label {
            index = Int(StableHash(label).value % UInt64(palette.count))
        } else {
            let step = (tile.rank.remainderReportingOverflow(dividingBy: palette.count).partialValue * 5) % palette.count
            index = (step + palette.count) % palette.count
        }
        return palette[index]
    }

    static func draw(_ tile: CollageTile, on canvas: GDImage, in rect: PixelRect) {
        let background = color(for: tile)
        canvas.fill(rect, with: background)
        drawNumber(tile.rank, on: canvas, centredIn: rect, background: background)
    }

    /// Draws `number` with libgd's built-in "giant" bitmap font (no font file needed), scaled
    /// up by a whole factor with nearest-neighbour copying so its pixels stay crisp squares.
    private static func drawNumber(_ number: Int, on canvas: GDImage, centredIn rect: PixelRect, background: RGBColor) {
        guard let font = canvas.gd.giantFont() else { return }
        let glyphWidth = Int(font.pointee.w)
        let glyphHeight = Int(font.pointee.h)
        var text = Array(String(number).utf8)
        guard glyphWidth > 0, glyphHeight > 0,
              let small = GDImage.canvas(width: glyphWidth * text.count, height: glyphHeight)
        else { return }
        small.fill(PixelRect(x: 0, y: 0, width: small.width, height: small.height), with: background)
        text.append(0)
        text.withUnsafeMutableBufferPointer { buffer in
            canvas.gd.string(small.pointer, font, 0, 0, buffer.baseAddress, ink.packed)
        }
        // Centre the ink itself, not the font's cell, which has empty rows above and below.
        guard let glyphs = inkBounds(of: small, background: background) else { return }
        let scale = max(1, min(rect.height * 45 / 100 / glyphs.height, rect.width * 75 / 100 / glyphs.width))
        let target = PixelRect(
            x: rect.x + (rect.width - glyphs.width * scale) / 2,
            y: rect.y + (rect.height - glyphs.height * scale) / 2,
            width: glyphs.width * scale,
            height: glyphs.height * scale
        )
        canvas.gd.copyResized(
            canvas.pointer, small.pointer,
            Int32(target.x), Int32(target.y), Int32(glyphs.x), Int32(glyphs.y),
            Int32(target.width), Int32(target.height), Int32(glyphs.width), Int32(glyphs.height)
        )
    }

    /// The smallest rectangle holding every pixel that is not `background`.
    private static func inkBounds(of image: GDImage, background: RGBColor) -> PixelRect? {
        var minX = Int.max, minY = Int.max, maxX = -1, maxY = -1
        for y in 0..<image.height {
            for x in 0..<image.width where image.color(x: x, y: y) != background {
                minX = min(minX, x)
                minY = min(minY, y)
                maxX = max(maxX, x)
                maxY = max(maxY, y)
            }
        }
        guard maxX >= 0 else { return nil }
        return PixelRect(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1)
    }
}
