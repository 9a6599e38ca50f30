import Telegram

/// Whoever keeps the pictures the outbox sends by a key (the collages, given at wiring): a
/// picture Telegram took once goes again by its `file_id`, and one whose `file_id` Telegram
/// refuses is made again. The outbox knows a picture only by its key.
public protocol ReusablePhotos: Sendable {
    /// The `file_id` of an earlier upload of the picture, if there was one.
    func fileID(forPhoto key: String) async -> String?
    /// Telegram took the picture, as an upload (`uploaded`) or by its `file_id`.
    func sent(photo key: String, as message: SentMessage, uploaded: Bool) async
    /// Telegram refused the picture's stored `file_id`.
    func refused(photo key: String) async
    /// The picture made again, to upload; nil when it cannot be.
    func remade(photo key: String) async -> InputFile?
}
