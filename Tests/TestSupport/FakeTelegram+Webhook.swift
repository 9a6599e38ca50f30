import Foundation
import Networking

/// Webhook mode, as the Bot API documents `setWebhook`, `deleteWebhook` and `getWebhookInfo`
/// (https://core.telegram.org/bots/api#setwebhook): Telegram keeps the URL, the secret, the
/// kinds of update and `max_connections` it was given; posts each update, as the request's
/// whole JSON body, with the secret in `X-Telegram-Bot-Api-Secret-Token`; takes only a 2xx
/// answer as delivery and gives up on an update otherwise (a non-2xx status or no answer in
/// time), keeping it and its place in the queue, and noting the error for `getWebhookInfo`;
/// and answers `getUpdates` with 409 while a webhook is set. `deleteWebhook` keeps pending
/// updates for `getUpdates` unless `drop_pending_updates` is true.
///
/// Telegram retries on its own schedule; here `deliverWebhookUpdates()` is the moment it
/// does, so that tests never wait for real time to pass.
extension FakeTelegram {
    /// What `setWebhook` set.
    struct Webhook {
        var url: URL?
        var secret: String?
        var maxConnections = 40
        var lastErrorDate: Int?
        var lastErrorMessage: String?
        /// Where the TLS-terminating proxy in front of the bot forwards to: the bot's own HTTP
        /// servers, one per replica. Empty: the URL itself.
        var upstreams: [URL] = []
        var nextUpstream = 0
        /// How long an update's post may take before Telegram calls it a failure.
        var timeout: Duration = .seconds(10)
        /// Why the last post got no answer.
        var failure = "Read timeout expired"
    }

    /// What one post of an update came to.
    public struct WebhookDelivery: Sendable, Equatable {
        public var updateID: Int64
        /// The answer's status; nil when none came in time, or the connection failed.
        public var status: Int?
    }

    /// Acts as the reverse proxy that terminates TLS for the webhook's public URL: posts go to
    /// `upstream` (scheme, host and port) at the webhook URL's own path.
    public func routeWebhook(to upstream: URL) {
        routeWebhook(to: [upstream])
    }

    /// As the load balancer in front of several replicas: posts go to each of `upstreams` in
    /// turn, and one that fails goes to the next on the next delivery.
    public func routeWebhook(to upstreams: [URL]) {
        webhook.upstreams = upstreams
        webhook.nextUpstream = 0
    }

    /// How many updates wait to be posted to the webhook.
    public var undeliveredUpdates: Int { pending.count { !$0.delivered } }

    /// How long a post may take before it counts as failed.
    public func setWebhookTimeout(_ timeout: Duration) {
        webhook.timeout = timeout
    }

    /// The webhook URL `setWebhook` set, or nil.
    public var webhookURL: URL? { webhook.url }

    /// Posts the pending updates to the webhook, in order, each until one fails: the rest wait
    /// with it for the next delivery, as Telegram keeps them. Returns what each post came to.
    @discardableResult
    public func deliverWebhookUpdates(transport: any HTTPTransport = CurlTransport()) async -> [WebhookDelivery] {
        var deliveries: [WebhookDelivery] = []
        while let url = webhook.url, let next = pending.first(where: { !$0.delivered }) {
            let status = await post(next, to: target(for: url), transport: transport)
            deliveries.append(WebhookDelivery(updateID: next.id, status: status))
            guard let status, (200..<300).contains(status) else {
                webhook.lastErrorDate = Int(Date().timeIntervalSince1970)
                webhook.lastErrorMessage = status.map { "Wrong response from the webhook: \($0) \(Self.reasons[$0] ?? "")" }
                    ?? webhook.failure
                break
            }
            pending.removeAll { $0.id == next.id }
        }
        return deliveries
    }

    /// The reason phrases Telegram's error messages name.
    private static let reasons = [
        400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 413: "Request Entity Too Large", 500: "Internal Server Error",
        502: "Bad Gateway", 503: "Service Unavailable",
    ]

    /// Where the proxy sends a post for `url`; several upstreams take turns.
    private func target(for url: URL) -> URL {
        guard !webhook.upstreams.isEmpty, var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        let upstream = webhook.upstreams[webhook.nextUpstream % webhook.upstreams.count]
        webhook.nextUpstream += 1
        parts.scheme = upstream.scheme
        parts.host = upstream.host
        parts.port = upstream.port
        return parts.url ?? url
    }

    private func post(_ update: Pending, to url: URL, transport: any HTTPTransport) async -> Int? {
        guard let body = try? JSONSerialization.data(withJSONObject: update.body) else { return nil }
        var headers = ["Content-Type": "application/json"]
        if let secret = webhook.secret { headers["X-Telegram-Bot-Api-Secret-Token"] = secret }
        let request = HTTPRequest(method: "POST", url: url, headers: headers, body: body, timeout: webhook.timeout)
        do {
            return try await transport.send(request).status
        } catch {
            // No answer: Telegram names a timeout and a refused connection differently.
            webhook.failure = "\(error)".lowercased().contains("timed out") ? "Read timeout expired" : "Connection refused"
            return nil
        }
    }

    /// `setWebhook`, `deleteWebhook` and `getWebhookInfo`, checked as the Bot API checks them.
    func webhookCall(_ call: Call) -> FakeResponse {
        let parameters = call.parameters
        switch call.method {
        case "setWebhook":
            let text = parameters["url"] as? String ?? ""
            // An empty URL removes the webhook, as `deleteWebhook` does.
            guard !text.isEmpty else { return deleteWebhook(dropPending: parameters["drop_pending_updates"] as? Bool ?? false) }
            guard let url = URL(string: text), url.scheme == "https", url.host?.isEmpty == false else {
                return refuse(call.method, 400, "Bad Request: bad webhook: An HTTPS URL must be provided for webhook")
            }
            let secret = parameters["secret_token"] as? String
            if let secret, !(1...256).contains(secret.count) || !secret.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_-".contains($0)) }) {
                return refuse(call.method, 400, "Bad Request: secret token contains unallowed characters")
            }
            let connections = (parameters["max_connections"] as? NSNumber)?.intValue ?? 40
            guard (1...100).contains(connections) else { return refuse(call.method, 400, "Bad Request: bad webhook: wrong max_connections specified") }
            if let kinds = parameters["allowed_updates"] as? [String] { allowedUpdates = kinds.isEmpty ? nil : Set(kinds) }
            if parameters["drop_pending_updates"] as? Bool == true { pending.removeAll() }
            webhook.url = url
            webhook.secret = secret
            webhook.maxConnections = connections
            return ok(true)
        case "deleteWebhook":
            return deleteWebhook(dropPending: parameters["drop_pending_updates"] as? Bool ?? false)
        default:
            var info: [String: Any] = [
                "url": webhook.url?.absoluteString ?? "", "has_custom_certificate": false, "pending_update_count": pending.count,
            ]
            if webhook.url != nil {
                info["max_connections"] = webhook.maxConnections
                if let allowedUpdates { info["allowed_updates"] = allowedUpdates.sorted() }
                if let date = webhook.lastErrorDate, let message = webhook.lastErrorMessage {
                    info["last_error_date"] = date
                    info["last_error_message"] = message
                }
            }
            return ok(info)
        }
    }

    private func deleteWebhook(dropPending: Bool) -> FakeResponse {
        if dropPending { pending.removeAll() }
        // What was handed to the webhook and not confirmed goes to the next poll.
        for index in pending.indices { pending[index].delivered = false }
        webhook = Webhook(upstreams: webhook.upstreams, timeout: webhook.timeout)
        return ok(true)
    }
}
