import Foundation

/// Last.fm's grey star: the image it serves for an album without art. It is no cover, so a
/// collage must never download or draw it.
public enum LastFMPlaceholder {
    /// The image name every size of the star carries.
    public static let imageName = "2a96cbd8b46e442fc41c2b86b821562f"

    /// Whether `url` is the star, at any size or host.
    public static func isPlaceholder(_ url: String) -> Bool {
        url.lowercased().contains(imageName)
    }

    /// Whether `url` is the star.
    public static func isPlaceholder(_ url: URL) -> Bool {
        isPlaceholder(url.absoluteString)
    }
}
