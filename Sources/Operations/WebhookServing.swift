import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Telegram
import Throwback

extension Router {
    /// Takes Telegram's posts at the webhook URL's path: 200 once the update is recorded, 401
    /// without the right secret, 400 for a body that is no update, 413 for one over
    /// `WebhookInbox.maxBodyBytes`, 503 when it could not be recorded (Telegram delivers it
    /// again). The answer never carries a reply: replies go through the outbox.
    func serve(_ inbox: WebhookInbox, logger: Logger) {
        let secretHeader = HTTPField.Name(WebhookRegistration.secretHeader)!
        post(RouterPath(inbox.registration.path)) { request, _ -> Response in
            var request = request
            let body: ByteBuffer
            do {
                body = try await request.collectBody(upTo: WebhookInbox.maxBodyBytes)
            } catch is NIOTooManyBytesError {
                logger.error("refused a webhook request over \(WebhookInbox.maxBodyBytes) bytes (413)")
                return Response(status: .contentTooLarge)
            }
            let answer = await inbox.receive(secretToken: request.headers[secretHeader], body: Array(buffer: body))
            let status: HTTPResponse.Status = switch answer {
            case .accepted: .ok
            case .unauthorized: .unauthorized
            case .malformed: .badRequest
            case .unavailable: .serviceUnavailable
            }
            return Response(status: status)
        }
    }
}
