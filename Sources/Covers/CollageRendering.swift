import Foundation

/// Something that turns ranked tiles into a collage image; the bot depends on this, so tests
/// can substitute a renderer that fails or answers instantly.
public protocol CollageRendering: Sendable {
    /// JPEG bytes of the collage of `tiles`, in rank order.
    func render(_ tiles: [CollageTile]) async throws -> Data
}
