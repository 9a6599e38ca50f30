import Foundation

/// The cover formats the renderer accepts, recognised by their first bytes.
///
/// Sniffing ignores any `Content-Type`: image hosts serve HTML error pages and mislabelled
/// files, and only the bytes say what the decoder will actually be given.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable {
    case jpeg
    case png
    case webp

    /// The format of `data`, or `nil` when it is none of the accepted ones.
    public init?(sniffing data: Data) {
        let bytes = ByteReader(data)
        if bytes.matches([0xFF, 0xD8, 0xFF], at: 0) {
            self = .jpeg
        } else if bytes.matches([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], at: 0) {
            self = .png
        } else if bytes.matches(Array("RIFF".utf8), at: 0), bytes.matches(Array("WEBP".utf8), at: 8) {
            self = .webp
        } else {
            return nil
        }
    }
}
