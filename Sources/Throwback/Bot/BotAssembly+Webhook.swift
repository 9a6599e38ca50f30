import Networking

extension BotAssembly {
    /// Where Telegram posts updates when `TELEGRAM_WEBHOOK_URL` is set, asking for the same
    /// kinds of update as polling does; nil to poll.
    func webhookInbox(token: Secret, allowedUpdates: [String]) -> WebhookInbox? {
        configuration.webhook(token: token, allowedUpdates: allowedUpdates).map {
            WebhookInbox(registration: $0, logger: options.makeLogger("webhook"))
        }
    }
}
