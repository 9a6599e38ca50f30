import Telegram

extension TelegramError {
    /// 403, or 400 "chat not found": nothing will ever be delivered to that chat again.
    var meansChatIsGone: Bool {
        switch self {
        case .forbidden: true
        case .badRequest(let reason): reason.contains("chat not found")
        default: false
        }
    }

    /// 400 "message is not modified": an edit to what the message shows already.
    var meansNotModified: Bool {
        if case .badRequest(let reason) = self { return reason.contains("message is not modified") }
        return false
    }
}
