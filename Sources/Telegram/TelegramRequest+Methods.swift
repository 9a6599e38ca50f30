import Foundation
import Networking

// The Bot API methods the bot calls, each built with its parameters.

extension JSONObjectWriter {
    /// A reply's members: the message it quotes (sent even if that message is gone), its
    /// forum topic, its keyboard.
    fileprivate mutating func reply(to replyTo: Int64?, topic: Int64?, keyboard: InlineKeyboard?) {
        if let topic { member("message_thread_id", topic) }
        if let replyTo {
            member("reply_parameters") { reply in
                reply.member("message_id", replyTo)
                reply.member("allow_sending_without_reply", true)
            }
        }
        if let keyboard { member("reply_markup", keyboard) }
    }
}

/// `true` results, which many Bot API methods return.
public typealias TelegramOK = Bool

extension TelegramRequest {
    public static func getMe() -> TelegramRequest<User> {
        .init(method: "getMe")
    }

    /// A long poll. The HTTP timeout must leave room beyond the poll timeout for the answer to arrive.
    public static func getUpdates(
        offset: Int64?, limit: Int = 100, timeout: Int, allowedUpdates: [String], requestTimeout: Duration? = nil
    ) -> TelegramRequest<[ReceivedUpdate]> {
        var parameters: [String: JSONValue] = [
            "limit": .int(Int64(limit)), "timeout": .int(Int64(timeout)),
            "allowed_updates": .array(allowedUpdates.map(JSONValue.string)),
        ]
        if let offset { parameters["offset"] = .int(offset) }
        return .init(method: "getUpdates", parameters: parameters, timeout: requestTimeout ?? .seconds(timeout + 15))
    }

    /// A message in HTML parse mode, quoting `replyTo` if given, in forum topic `topic` if given.
    public static func sendMessage(
        chatID: Int64, html: String, replyTo: Int64? = nil, topic: Int64? = nil, keyboard: InlineKeyboard? = nil
    ) -> TelegramRequest<SentMessage> {
        var json = JSONObjectWriter(capacity: html.utf8.count + 512)
        json.member("chat_id", chatID)
        json.member("text", html)
        json.member("parse_mode", "HTML")
        json.member("link_preview_options") { $0.member("is_disabled", true) }
        json.reply(to: replyTo, topic: topic, keyboard: keyboard)
        return .init(method: "sendMessage", encodedParameters: json.finish())
    }

    /// Replaces a message's text (and keyboard) in place.
    public static func editMessageText(
        chatID: Int64, messageID: Int64, html: String, keyboard: InlineKeyboard? = nil
    ) -> TelegramRequest<IgnoredResult> {
        .init(method: "editMessageText", parameters: EditedMessage.chat(chatID, message: messageID).text(html, keyboard: keyboard))
    }

    /// A photo with an HTML caption (at most `TelegramHTML.maxCaptionLength` once parsed),
    /// quoting `replyTo` if given, in forum topic `topic` if given.
    public static func sendPhoto(
        chatID: Int64, photo: PhotoSource, captionHTML: String, replyTo: Int64? = nil, topic: Int64? = nil, keyboard: InlineKeyboard? = nil
    ) -> TelegramRequest<SentMessage> {
        var json = JSONObjectWriter(capacity: captionHTML.utf8.count + 512)
        json.member("chat_id", chatID)
        json.member("caption", captionHTML)
        json.member("parse_mode", "HTML")
        var attachments: [String: InputFile] = [:]
        switch photo {
        case .upload(let file): attachments["photo"] = file
        case .fileID(let id): json.member("photo", id)
        }
        json.reply(to: replyTo, topic: topic, keyboard: keyboard)
        return .init(method: "sendPhoto", encodedParameters: json.finish(), attachments: attachments)
    }

    /// Replaces a photo message's photo, caption (and keyboard) in place. Telegram answers
    /// with the edited message, whose `photoFileID` is the new photo's.
    public static func editMessageMedia(
        chatID: Int64, messageID: Int64, photo: PhotoSource, captionHTML: String, keyboard: InlineKeyboard? = nil
    ) -> TelegramRequest<SentMessage> {
        let (parameters, attachments) = EditedMessage.chat(chatID, message: messageID).photo(photo, captionHTML: captionHTML, keyboard: keyboard)
        return .init(method: "editMessageMedia", parameters: parameters, attachments: attachments)
    }

    /// Replaces a photo message's caption (and keyboard) in place.
    public static func editMessageCaption(
        chatID: Int64, messageID: Int64, captionHTML: String, keyboard: InlineKeyboard? = nil
    ) -> TelegramRequest<IgnoredResult> {
        .init(method: "editMessageCaption", parameters: EditedMessage.chat(chatID, message: messageID).caption(captionHTML, keyboard: keyboard))
    }

    public static func answerCallbackQuery(id: String, text: String? = nil) -> TelegramRequest<TelegramOK> {
        var parameters: [String: JSONValue] = ["callback_query_id": .string(id)]
        if let text { parameters["text"] = .string(text) }
        return .init(method: "answerCallbackQuery", parameters: parameters)
    }

    /// Sets the command menu that `scope` sees; with `languageCode` (ISO 639-1), the menu of
    /// the people whose Telegram is in that language.
    public static func setMyCommands(
        _ commands: [BotCommand], scope: BotCommandScope = .default, languageCode: String? = nil
    ) -> TelegramRequest<TelegramOK> {
        var parameters: [String: JSONValue] = [
            "commands": .array(commands.map { .object(["command": .string($0.command), "description": .string($0.description)]) }),
            "scope": .object(["type": .string(scope.rawValue)]),
        ]
        if let languageCode { parameters["language_code"] = .string(languageCode) }
        return .init(method: "setMyCommands", parameters: parameters)
    }

    public static func getMyDescription(languageCode: String? = nil) -> TelegramRequest<BotDescription> {
        .init(method: "getMyDescription", parameters: languageParameter(languageCode))
    }

    /// The text an empty chat with the bot shows (0–512 characters), for everyone or for the
    /// people whose Telegram is in `languageCode`.
    public static func setMyDescription(_ text: String, languageCode: String? = nil) -> TelegramRequest<TelegramOK> {
        .init(method: "setMyDescription", parameters: languageParameter(languageCode).merging(["description": .string(text)]) { $1 })
    }

    public static func getMyShortDescription(languageCode: String? = nil) -> TelegramRequest<BotShortDescription> {
        .init(method: "getMyShortDescription", parameters: languageParameter(languageCode))
    }

    /// The text of the bot's profile page and of shared links to it (0–120 characters), for
    /// everyone or for the people whose Telegram is in `languageCode`.
    public static func setMyShortDescription(_ text: String, languageCode: String? = nil) -> TelegramRequest<TelegramOK> {
        .init(method: "setMyShortDescription", parameters: languageParameter(languageCode).merging(["short_description": .string(text)]) { $1 })
    }

    private static func languageParameter(_ code: String?) -> [String: JSONValue] {
        code.map { ["language_code": .string($0)] } ?? [:]
    }

    /// Removes a webhook so that long polling works; pending updates are kept.
    public static func deleteWebhook() -> TelegramRequest<TelegramOK> {
        .init(method: "deleteWebhook", parameters: ["drop_pending_updates": .bool(false)])
    }

    public static func getChatAdministrators(chatID: Int64) -> TelegramRequest<[ChatMember]> {
        .init(method: "getChatAdministrators", parameters: ["chat_id": .int(chatID)])
    }
}
