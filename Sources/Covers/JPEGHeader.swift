/// A walk over a JPEG's marker segments up to its first scan, as a decoder would do it.
///
/// Each segment's declared length is checked against the bytes that are there, and the walk
/// always moves forward, so arbitrary input ends it quickly with an answer or `nil`.
struct JPEGHeader {
    let width: Int
    let height: Int
    /// Where the entropy-coded data of the first scan starts.
    let scanDataOffset: Int

    init?(_ bytes: ByteReader) {
        guard bytes.matches([0xFF, 0xD8], at: 0) else { return nil }
        var offset = 2
        var frame: (width: Int, height: Int)?
        while true {
            guard bytes.u8(at: offset) == 0xFF else { return nil }
            // A marker may be preceded by any number of 0xFF fill bytes.
            var markerOffset = offset + 1
            while bytes.u8(at: markerOffset) == 0xFF { markerOffset += 1 }
            guard let marker = bytes.u8(at: markerOffset) else { return nil }
            offset = markerOffset + 1
            switch marker {
            case 0x01, 0xD0...0xD7:
                continue  // TEM and RSTn stand alone, with no length.
            case 0x00, 0xD8, 0xD9:
                return nil  // A stuffed byte, a second start, or the end before any scan.
            default:
                break
            }
            // The length counts its own two bytes but not the marker.
            guard let length = bytes.u16BE(at: offset), length >= 2, bytes.has(length, at: offset) else { return nil }
            if Self.isStartOfFrame(marker) {
                // Precision (1 byte), then height and width; a second frame header is invalid.
                guard frame == nil, length >= 8,
                      let height = bytes.u16BE(at: offset + 3), let width = bytes.u16BE(at: offset + 5)
                else { return nil }
                frame = (width, height)
            } else if marker == 0xDA {
                guard let frame else { return nil }
                self.width = frame.width
                self.height = frame.height
                self.scanDataOffset = offset + length
                return
            }
            offset += length
        }
    }

    /// SOF0–SOF15, except the three codes in that range that are something else:
    /// DHT (C4), JPG (C8) and DAC (CC).
    private static func isStartOfFrame(_ marker: UInt8) -> Bool {
        (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
    }

    /// Whether the end-of-image marker follows the scan data. Inside entropy-coded data a 0xFF
    /// is always followed by 0x00 or a restart code, so FF D9 there is the real end; without it
    /// the file was cut short, and libjpeg would silently pad the missing rows with grey.
    func isComplete(_ bytes: ByteReader) -> Bool {
        bytes.lastIndex(of: [0xFF, 0xD9], from: scanDataOffset) != nil
    }
}
