import Foundation

/// One cell of a collage: an album's rank and, if one could be fetched, its cover.
public struct CollageTile: Sendable, Hashable {
    /// The rank shown on the placeholder when there is no usable cover.
    public var rank: Int
    /// The encoded cover (JPEG, PNG or WebP). `nil`, or bytes that fail the checks or the
    /// decoder, give a placeholder instead.
    public var image: Data?
    /// Seeds the placeholder's colour (the album name, say), so an album keeps its colour from
    /// week to week whatever its rank. Without it, the rank seeds the colour.
    public var label: String?

    public init(rank: Int, image: Data?, label: String? = nil) {
        self.rank = rank
        self.image = image
        self.label = label
    }
}
