import CGD
import Foundation

/// Made-up album art for offline demos: a few flat shapes whose colours and positions come
/// from a stable hash of the artist and album, so each album always looks the same and
/// different albums look different.
public enum DemoCover {
    /// A `side`×`side` PNG (clamped to 16...1024) for this album; the same bytes on every call
    /// and in every process. Empty only if libgd cannot allocate or encode the image.
    public static func image(artist: String, album: String, side: Int = 300) -> Data {
        let side = min(max(side, 16), 1024)
        guard let image = GDImage.canvas(width: side, height: side) else { return Data() }
        var random = StableRandom(seed: StableHash(artist, album).value)
        // One base hue per album; the shapes use hues near it or opposite, which keeps each
        // cover coherent while albums differ.
        let baseHue = random.unit() * 360
        func color(hueShift: Double, lightness: ClosedRange<Double>) -> RGBColor {
            RGBColor(
                hue: baseHue + hueShift,
                saturation: 0.45 + random.unit() * 0.4,
                lightness: lightness.lowerBound + random.unit() * (lightness.upperBound - lightness.lowerBound)
            )
        }
        image.fill(PixelRect(x: 0, y: 0, width: side, height: side), with: color(hueShift: 0, lightness: 0.15...0.35))

        for _ in 0..<random.next(in: 3...6) {
            let shift = [0, 30, -30, 180, 150, 210][random.next(in: 0...5)]
            let fill = color(hueShift: Double(shift), lightness: 0.40...0.75)
            let x = random.next(in: 0...side), y = random.next(in: 0...side)
            let size = random.next(in: side / 6...side * 2 / 3)
            switch random.next(in: 0...3) {
            case 0:
                image.gd.filledEllipse(image.pointer, Int32(x), Int32(y), Int32(size), Int32(size), fill.packed)
            case 1:
                image.fill(PixelRect(x: x - size / 2, y: y - size / 4, width: size, height: size / 2), with: fill)
            case 2:
                var points = [
                    gdPoint(x: Int32(x), y: Int32(y - size / 2)),
                    gdPoint(x: Int32(x + size / 2), y: Int32(y + size / 2)),
                    gdPoint(x: Int32(x - size / 2), y: Int32(y + size / 2)),
                ]
                image.gd.filledPolygon(image.pointer, &points, Int32(points.count), fill.packed)
            default:
                // A band across the whole cover, like a label stripe.
                image.fill(PixelRect(x: 0, y: y, width: side, height: max(4, size / 5)), with: fill)
            }
        }
        return image.encoded(as: .png) ?? Data()
    }
}
