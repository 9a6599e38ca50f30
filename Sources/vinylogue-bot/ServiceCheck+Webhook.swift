import Foundation
import Telegram

extension ServiceCheck {
    /// `getWebhookInfo` in one line: the webhook Telegram holds (none while the bot polls),
    /// the updates waiting for it, its last delivery error, and what `run` will change.
    func webhook(_ telegram: some TelegramClient) async -> Line {
        let line = { (isOK: Bool, text: String) in Line(service: "Webhook", isOK: isOK, text: text) }
        let info: WebhookInfo
        do {
            info = try await telegram.getWebhookInfo()
        } catch {
            return line(false, "could not ask Telegram about it: \(error).")
        }
        let configured = configuration.webhookURL?.absoluteString
        guard !info.url.isEmpty else {
            let plan = configured.map { "; `run` sets TELEGRAM_WEBHOOK_URL (\($0)) at start" } ?? ", the bot polls"
            return line(true, "none set\(plan).")
        }
        var text = "\(info.url), \(info.pendingUpdateCount) update\(info.pendingUpdateCount == 1 ? "" : "s") pending"
        if let message = info.lastErrorMessage {
            let date = info.lastErrorDate.map { " at \($0.formatted(.iso8601))" } ?? ""
            text += ", last error\(date): \(message)"
        }
        switch configured {
        case nil: text += "; `run` deletes it and polls, keeping pending updates"
        case info.url?: break
        case let other?: text += "; `run` sets TELEGRAM_WEBHOOK_URL (\(other)) instead"
        }
        return line(true, text + ".")
    }
}
