import Foundation
import Networking
import Telegram
import Testing
import TestSupport
import TestLogging

let token = "987654:SECRET-token-xyz"
let tokenSecret = Secret(token)

func telegram(_ steps: [ScriptedTransport.Step], logs: LogCapture = LogCapture()) -> (HTTPTelegramClient, ScriptedTransport) {
    let transport = ScriptedTransport(steps)
    return (HTTPTelegramClient(transport: transport, baseURL: URL(string: "http://fake")!, token: tokenSecret, logger: logs.logger()), transport)
}

@Suite(.capturingLogs) struct TelegramClientTests {
    @Test func requestsGoToBotTokenMethodAsJSON() async throws {
        let (client, transport) = telegram([.respond(status: 200, body: #"{"ok":true,"result":{"message_id":5,"chat":{"id":-1,"type":"group"}}}"#)])
        let message = try await client.sendMessage(chatID: -1, html: "<b>hi</b>", replyTo: 4)
        #expect(message.messageID == 5)
        let request = try #require(transport.requests.first)
        #expect(request.url.absoluteString == "http://fake/bot\(token)/sendMessage")
        #expect(request.method == "POST")
        let body = try JSONSerialization.jsonObject(with: request.body ?? Data()) as? [String: Any]
        #expect(body?["parse_mode"] as? String == "HTML")
        #expect((body?["reply_parameters"] as? [String: Any])?["message_id"] as? Int == 4)
    }

    @Test(arguments: [
        (429, #"{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 7","parameters":{"retry_after":7}}"#, TelegramError.retryAfter(seconds: 7)),
        (400, #"{"ok":false,"error_code":400,"description":"Bad Request: group chat was upgraded","parameters":{"migrate_to_chat_id":-1001234}}"#, .chatMigrated(to: -1_001_234)),
        (401, #"{"ok":false,"error_code":401,"description":"Unauthorized"}"#, .unauthorized),
        (404, #"{"ok":false,"error_code":404,"description":"Not Found"}"#, .notFound),
        // A URL with no Bot API behind it: the web server's own page.
        (404, "<html>404 Not Found</html>", .notFound),
        (401, "<html>401 Authorization Required</html>", .unauthorized),
        (409, #"{"ok":false,"error_code":409,"description":"Conflict: terminated by other getUpdates request"}"#, .conflict("Conflict: terminated by other getUpdates request")),
        (403, #"{"ok":false,"error_code":403,"description":"Forbidden: bot was blocked by the user"}"#, .forbidden("Forbidden: bot was blocked by the user")),
        (400, #"{"ok":false,"error_code":400,"description":"Bad Request: can't parse entities"}"#, .badRequest("Bad Request: can't parse entities")),
        (502, "<html>Bad Gateway</html>", .server(status: 502, description: "unreadable body")),
        (200, "not json", .undecodable("getMe: HTTP 200")),
        (200, #"{"ok":true,"result":"surprise"}"#, .undecodable("getMe: result missing or malformed")),
    ])
    func errorsAreTyped(status: Int, body: String, expected: TelegramError) async {
        let (client, _) = telegram([.respond(status: status, body: body)])
        await #expect(throws: expected) { try await client.getMe() }
    }

    @Test func transportErrorsSayWhetherTheRequestMayHaveArrived() async {
        let failing = HTTPTelegramClient(transport: FailingTransport(), token: tokenSecret)
        await #expect(throws: TelegramError.transport("could not connect to host", mayHaveBeenDelivered: false)) {
            try await failing.getMe()
        }
    }

    @Test func theTokenNeverAppearsInLogsOrErrors() async {
        let logs = LogCapture()
        let (client, _) = telegram([
            .fail("connection reset while fetching http://fake/bot\(token)/getMe"),
            .respond(status: 500, body: #"{"ok":false,"error_code":500,"description":"upstream /bot\#(token)/getMe failed"}"#),
            .respond(status: 400, body: #"{"ok":false,"error_code":400,"description":"bad /bot\#(token)"}"#),
        ], logs: logs)
        var errors: [String] = []
        for _ in 0..<3 {
            do { _ = try await client.getMe() } catch { errors.append("\(error)") }
        }
        #expect(errors.count == 3)
        #expect(logs.allLines.count >= 3)
        for text in errors + logs.allLines { #expect(!text.contains(token), "\(text)") }
    }

    @Test func unknownFieldsAndUpdateKindsDecode() async throws {
        let (client, _) = telegram([.respond(status: 200, body: """
        {"ok":true,"result":[
          {"update_id":10,"message":{"message_id":1,"date":1,"text":"/tb","chat":{"id":-5,"type":"group","is_forum":true},"from":{"id":7,"is_bot":false,"first_name":"A","is_premium":true},"brand_new_field":{"x":1}}},
          {"update_id":11,"message_reaction":{"chat":{"id":-5,"type":"group"}}},
          {"update_id":12,"message":{"message_id":"not a number"}},
          {"update_id":13,"callback_query":{"id":"q","from":{"id":7,"is_bot":false,"first_name":"A"},"message":{"message_id":3,"date":0,"chat":{"id":-5,"type":"group"}},"data":"x","chat_instance":"ci"}}
        ]}
        """)])
        let received = try await client.getUpdates(offset: nil, timeout: 0, allowedUpdates: [])
        let updates = received.map(\.update)
        #expect(updates.map(\.updateID) == [10, 11, 12, 13])
        // Each update's JSON is kept as it came, for the journal: unknown fields and all.
        #expect(String(decoding: received[1].json, as: UTF8.self) == #"{"update_id":11,"message_reaction":{"chat":{"id":-5,"type":"group"}}}"#)
        #expect(updates[0].message?.text == "/tb")
        #expect(updates[1].message == nil)
        #expect(updates[2].message == nil)
        #expect(updates[3].callbackQuery?.data == "x")
        #expect(updates[3].chatID == -5)
    }
}

/// Always fails before the request leaves.
private struct FailingTransport: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        throw TransportError("could not connect to host", requestMayHaveBeenSent: false)
    }
}
