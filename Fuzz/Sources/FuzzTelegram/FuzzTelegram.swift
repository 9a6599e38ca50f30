// Bot API answers: the input is the HTTP response to every request (first byte: the status,
// see CannedTransport; the rest: the body), read through the real HTTP client. Message texts
// are also written back into a request body, which must read back unchanged.
import Foundation
import FuzzSupport
import Networking
import Telegram

/// The token the client sends; it must never come back in an error.
private let token = "FUZZ:not-a-real-bot-token"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    Quiet.setUp()
    let client = HTTPTelegramClient(transport: CannedTransport(input: data, size: size), token: Secret(token))

    if let updates = call("getUpdates", {
        try await client.getUpdates(offset: 1, timeout: 0, allowedUpdates: ["message", "callback_query"])
    }) {
        for received in updates {
            let update = received.update
            // The journal keeps each update's JSON as Telegram sent it, and reads it back after
            // a restart: what reads back is the same update.
            if let stored = try? Update(json: JSONNode(parsing: received.json)), stored != update {
                violated("an update read back from its journal copy differs", String(decoding: received.json, as: UTF8.self))
            }
            _ = update.identity
            _ = update.chatID
            for message in [update.message, update.editedMessage, update.channelPost, update.callbackQuery?.message] {
                guard let message else { continue }
                _ = (message.isInaccessible, message.topicID, message.isFromAnonymousAdmin, message.chat.isPrivate, message.hasPhoto)
                if let text = message.text { requestBodyRoundTrip(text) }
            }
            roundTrip(update, "Update")
        }
    }
    if let message = call("sendMessage", { try await client.send(TelegramRequest<SentMessage>.sendMessage(chatID: -1_001_234_567_890, html: "<b>hi</b>")) }) {
        roundTrip(message, "SentMessage")
    }
    if let photo = call("sendPhoto", {
        try await client.send(TelegramRequest<SentMessage>.sendPhoto(chatID: -1_001_234_567_890, photo: .fileID("photo-1"), captionHTML: "<b>hi</b>"))
    }) {
        roundTrip(photo, "SentMessage of a photo")
    }
    // What the outbox reads of every answer: a message, or `true` for an edit.
    if let receipt = call("editMessageText", {
        try await client.send(TelegramRequest<IgnoredResult>.editMessageText(chatID: -1_001_234_567_890, messageID: 1, html: "<b>hi</b>").receipted)
    }) {
        if let message = receipt.message { roundTrip(message, "SentMessage of an edit") }
    }
    if let admins = call("getChatAdministrators", {
        try await client.send(TelegramRequest<[ChatMember]>.getChatAdministrators(chatID: -1_001_234_567_890))
    }) {
        for admin in admins { roundTrip(admin, "ChatMember") }
    }
    if let me = call("getMe", { try await client.getMe() }) {
        roundTrip(me, "User")
    }
    return 0
}

/// Runs one client call: its value, nil for a `TelegramError`; any other error is a finding.
private func call<T: Sendable>(_ name: String, _ body: @escaping @Sendable () async throws -> T) -> T? {
    switch blockingResult(body) {
    case .success(let value):
        return value
    case .failure(let error as TelegramError):
        if case .retryAfter(let seconds) = error, !(1...3600).contains(seconds) {
            violated("\(name): retryAfter(seconds: \(seconds)) is outside 1...3600")
        }
        if error.description.contains(token) || "\(error)".contains(token) {
            violated("\(name): the bot token leaked into an error", error.description)
        }
        return nil
    case .failure(let error):
        violated("\(name): an error other than TelegramError escaped: \(type(of: error))", "\(error)")
    }
}

/// What the client decoded survives being written as JSON and read back.
private func roundTrip<T: Codable & Equatable>(_ value: T, _ name: String) {
    do {
        let json = try JSONEncoder().encode(value)
        let back = try JSONDecoder().decode(T.self, from: json)
        if back != value {
            violated("\(name) does not survive JSON: decoded back different",
                     "before: \(value)\nafter:  \(back)\njson: \(String(decoding: json, as: UTF8.self))")
        }
    } catch {
        violated("\(name) does not survive JSON: \(error)", "\(value)")
    }
}

/// Text that came from Telegram goes back out in request bodies, which the client writes
/// itself: they must read back as the same values.
private func requestBodyRoundTrip(_ text: String) {
    let body = JSONValue.object(["text": .string(text), "nested": .array([.string(text), .int(-1)])])
    let bytes = body.jsonBytes
    guard let back = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)), back == body else {
        violated("a request body does not read back as written", String(decoding: bytes, as: UTF8.self))
    }
    // Replies are written straight to JSON, with the text in every place a reply puts it
    // (as a button's label too); read back, as Foundation reads them and as the bot reads
    // its own (`parameters`), they hold the same values.
    let keyboard = InlineKeyboard(rows: [[.init(text: text, callbackData: "tb|2|" + text)], [.init(text: "▶", callbackData: text)]])
    let replyTo = Int64(text.utf8.count) - 3
    let requests: [(TelegramRequest<SentMessage>, [String: JSONValue])] = [
        (.sendMessage(chatID: Int64.min, html: text, replyTo: replyTo, topic: Int64.max, keyboard: keyboard), [
            "chat_id": .int(Int64.min), "text": .string(text), "parse_mode": .string("HTML"),
            "link_preview_options": .object(["is_disabled": .bool(true)]), "message_thread_id": .int(Int64.max),
        ]),
        (.sendPhoto(chatID: 0, photo: .fileID(text), captionHTML: text, replyTo: replyTo, keyboard: keyboard), [
            "chat_id": .int(0), "caption": .string(text), "parse_mode": .string("HTML"), "photo": .string(text),
        ]),
    ]
    let markup = JSONValue.object(["inline_keyboard": .array(keyboard.rows.map { row in
        .array(row.map { .object(["text": .string($0.text), "callback_data": .string($0.callbackData)]) })
    })])
    for (request, fields) in requests {
        var expected = fields
        expected["reply_parameters"] = .object(["message_id": .int(replyTo), "allow_sending_without_reply": .bool(true)])
        expected["reply_markup"] = markup
        let json = request.parametersJSON
        guard let foundation = try? JSONDecoder().decode(JSONValue.self, from: json), foundation == .object(expected) else {
            violated("\(request.method)'s body does not read back as written", String(decoding: json, as: UTF8.self))
        }
        if request.parameters != expected {
            violated("\(request.method)'s parameters do not read back from its body", String(decoding: json, as: UTF8.self))
        }
    }
}

/// The executable's entry point under SwiftPM's name for it; libFuzzer takes over from here.
@_cdecl("FuzzTelegram_main")
public func fuzzerEntry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv)
}
