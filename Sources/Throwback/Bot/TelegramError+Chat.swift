import Telegram

extension TelegramError {
    /// Telegram received the call and refused it for what it said.
    var isRefusal: Bool {
        switch self {
        case .badRequest, .unauthorized: true
        default: false
        }
    }

    /// 403, or 400 "chat not found": nothing will ever be delivered to that chat again.
    var meansChatIsGone: Bool {
        switch self {
        case .forbidden: true
        case .badRequest(let reason): reason.contains("chat not found")
        default: false
        }
    }
}
