/// What the libgd on this system can do, found once.
enum GDRuntime {
    /// The formats this libgd can decode, found by round-tripping a 1×1 image: a build without
    /// a codec still has its functions, which then just fail.
    static let decodableFormats: Set<ImageFormat> = {
        guard let probe = GDImage.canvas(width: 1, height: 1) else { return [] }
        var formats = Set<ImageFormat>()
        for format in ImageFormat.allCases {
            guard let encoded = probe.encoded(as: format) else { continue }
            if GDImage.decodeUnchecked(encoded, as: format) != nil {
                formats.insert(format)
            }
        }
        return formats
    }()
}

extension ImageFormat {
    /// The formats the system's libgd can decode (none without libgd). Debian's libgd3 has
    /// all three; a build missing one refuses such covers with
    /// `CoverError.decoderUnavailable`, so they become placeholders.
    public static var decodable: Set<ImageFormat> { GDRuntime.decodableFormats }
}
