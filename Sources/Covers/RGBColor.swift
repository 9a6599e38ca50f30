/// An opaque 8-bit RGB colour.
public struct RGBColor: Sendable, Hashable {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// From libgd's true-colour int (0x7FRRGGBB, alpha ignored).
    init(packed: Int32) {
        red = UInt8(truncatingIfNeeded: packed >> 16)
        green = UInt8(truncatingIfNeeded: packed >> 8)
        blue = UInt8(truncatingIfNeeded: packed)
    }

    /// libgd's true-colour int, fully opaque (`gdTrueColor` is a C macro Swift cannot import).
    var packed: Int32 { Int32(red) << 16 | Int32(green) << 8 | Int32(blue) }

    /// A colour from hue (degrees), saturation and lightness (0...1).
    init(hue: Double, saturation: Double, lightness: Double) {
        // The standard HSL to RGB conversion.
        let chroma = (1 - abs(2 * lightness - 1)) * saturation
        let sector = (hue.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360) / 60
        let second = chroma * (1 - abs(sector.truncatingRemainder(dividingBy: 2) - 1))
        let (r, g, b): (Double, Double, Double) = switch sector {
        case ..<1: (chroma, second, 0)
        case ..<2: (second, chroma, 0)
        case ..<3: (0, chroma, second)
        case ..<4: (0, second, chroma)
        case ..<5: (second, 0, chroma)
        default: (chroma, 0, second)
        }
        let match = lightness - chroma / 2
        func channel(_ value: Double) -> UInt8 { UInt8(clamping: Int(((value + match) * 255).rounded())) }
        self.init(red: channel(r), green: channel(g), blue: channel(b))
    }
}
