import Foundation
import Networking

/// A call's parameters as values, or as the JSON object they are sent as: one built for a
/// reply, or read back from the outbox, is sent as it is and read as values only when
/// something asks for them. Outside `TelegramRequest`, so that it is not generic.
private enum RequestParameters: Sendable {
    case values([String: JSONValue])
    case encoded(Data)
}

/// One typed Bot API call: a method name, its JSON parameters, and any files to upload.
public struct TelegramRequest<Response: JSONReadable>: Sendable {
    public let method: String
    /// The parameters as values, or as the JSON object they are sent as.
    private var storage: RequestParameters
    /// Files to upload, by the name of their part (a parameter refers to one as `attach://name`,
    /// or the part takes the parameter's name). With any, the call goes as `multipart/form-data`.
    public var attachments: [String: InputFile]
    /// How long the HTTP exchange may take; long polls need more than their poll timeout.
    public var timeout: Duration
    /// How long the call may spend waiting between attempts (flood waits, backoff) before
    /// it gives up: interactive calls, such as answering a button press within Telegram's
    /// 15 seconds, must not wait out a long 429. Nil: the retry policy alone decides.
    public var patience: Duration?

    public init(
        method: String, parameters: [String: JSONValue] = [:], attachments: [String: InputFile] = [:], timeout: Duration = .seconds(30)
    ) {
        self.method = method
        self.storage = .values(parameters)
        self.attachments = attachments
        self.timeout = timeout
    }

    /// A call whose parameters are already the JSON object `encodedParameters`, which the
    /// caller has checked is one.
    public init(method: String, encodedParameters: Data, attachments: [String: InputFile] = [:], timeout: Duration = .seconds(30)) {
        self.method = method
        self.storage = .encoded(encodedParameters)
        self.attachments = attachments
        self.timeout = timeout
    }

    /// The call's parameters. A call built as JSON reads them from it when asked (an
    /// adaptor that rewrites one, a form upload); setting them replaces the JSON.
    public var parameters: [String: JSONValue] {
        get {
            switch storage {
            case .values(let values): values
            case .encoded(let json): (try? JSONNode(parsing: [UInt8](json))).map(JSONValue.init(node:))?.objectValue ?? [:]
            }
        }
        set { storage = .values(newValue) }
    }

    /// `parameters` as a JSON object: the bytes it was built or stored as, or encoded now.
    public var parametersJSON: Data {
        switch storage {
        case .encoded(let json): json
        case .values(let values): Data(JSONValue.object(values).jsonBytes)
        }
    }

    /// Encodes the parameters once and keeps them so (the outbox stores these bytes, and
    /// the same bytes are sent); returns them.
    public mutating func encodeParameters() -> Data {
        let json = parametersJSON
        storage = .encoded(json)
        return json
    }

    /// The same call, giving up on waits that would take it past `patience`.
    public func patient(for patience: Duration) -> TelegramRequest {
        var copy = self
        copy.patience = patience
        return copy
    }

    /// The target chat, for throttling and migration.
    public var chatID: Int64? { parameters["chat_id"]?.intValue }

    /// Whether the call posts something users see, so flood limits and once-only delivery apply.
    public var postsToChat: Bool {
        ["sendMessage", "editMessageText", "sendPhoto", "editMessageMedia", "editMessageCaption"].contains(method)
    }

    /// Whether the call edits a message: made twice, it changes nothing more (Telegram answers
    /// the repeat "message is not modified"), so it may go again when its outcome is unknown.
    public var editsMessage: Bool { method.hasPrefix("editMessage") }

    /// The same call, its answer read as `Other`.
    public func answered<Other>(as: Other.Type) -> TelegramRequest<Other> {
        var copy = TelegramRequest<Other>(method: method, attachments: attachments, timeout: timeout)
        copy.storage = storage
        copy.patience = patience
        return copy
    }

    /// The same photo call (`sendPhoto`, `editMessageMedia`) with another picture; other
    /// calls are returned as they are.
    public func withPhoto(_ photo: PhotoSource) -> TelegramRequest {
        var copy = self
        switch (method, photo) {
        case ("sendPhoto", .upload(let file)):
            copy.parameters["photo"] = nil
            copy.attachments["photo"] = file
        case ("sendPhoto", .fileID(let id)):
            copy.parameters["photo"] = .string(id)
            copy.attachments["photo"] = nil
        case ("editMessageMedia", _):
            guard case .object(var media)? = parameters["media"] else { return self }
            switch photo {
            case .upload(let file):
                media["media"] = .string("attach://photo")
                copy.attachments["photo"] = file
            case .fileID(let id):
                media["media"] = .string(id)
                copy.attachments["photo"] = nil
            }
            copy.parameters["media"] = .object(media)
        default:
            break
        }
        return copy
    }

    /// The same message without its picture: a `sendPhoto` as a `sendMessage` of its caption,
    /// an `editMessageMedia` as an `editMessageCaption`; nil for any other call, or a picture
    /// without a caption.
    public var withoutPhoto: TelegramRequest? {
        var copy = self
        copy.attachments = [:]
        switch method {
        case "sendPhoto":
            guard let caption = parameters["caption"], caption != .string("") else { return nil }
            copy.parameters["photo"] = nil
            copy.parameters["caption"] = nil
            copy.parameters["text"] = caption
            copy.parameters["link_preview_options"] = .object(["is_disabled": .bool(true)])
            return TelegramRequest(method: "sendMessage", copy)
        case "editMessageMedia":
            guard case .object(let media)? = parameters["media"], let caption = media["caption"], caption != .string("") else { return nil }
            copy.parameters["media"] = nil
            copy.parameters["caption"] = caption
            copy.parameters["parse_mode"] = media["parse_mode"]
            return TelegramRequest(method: "editMessageCaption", copy)
        default:
            return nil
        }
    }

    private init(method: String, _ other: TelegramRequest) {
        self.init(method: method, parameters: other.parameters, attachments: other.attachments, timeout: other.timeout)
        patience = other.patience
    }

    /// Whether the call names a photo Telegram already has, by its `file_id`.
    public var sendsStoredPhoto: Bool {
        guard attachments.isEmpty else { return false }
        switch method {
        case "sendPhoto": return parameters["photo"] != nil
        case "editMessageMedia": return true
        default: return false
        }
    }

    /// The same call, its answer read as a `MessageReceipt`, as the outbox reads every answer.
    public var receipted: TelegramRequest<MessageReceipt> { answered(as: MessageReceipt.self) }

    /// The same call aimed at another chat.
    public func redirected(to chat: Int64) -> TelegramRequest {
        var copy = self
        copy.parameters["chat_id"] = .int(chat)
        return copy
    }
}

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

    /// Sets the command menu that `scope` sees.
    public static func setMyCommands(_ commands: [BotCommand], scope: BotCommandScope = .default) -> TelegramRequest<TelegramOK> {
        .init(method: "setMyCommands", parameters: [
            "commands": .array(commands.map { .object(["command": .string($0.command), "description": .string($0.description)]) }),
            "scope": .object(["type": .string(scope.rawValue)]),
        ])
    }

    public static func getMyDescription() -> TelegramRequest<BotDescription> {
        .init(method: "getMyDescription")
    }

    /// The text an empty chat with the bot shows (0–512 characters).
    public static func setMyDescription(_ text: String) -> TelegramRequest<TelegramOK> {
        .init(method: "setMyDescription", parameters: ["description": .string(text)])
    }

    public static func getMyShortDescription() -> TelegramRequest<BotShortDescription> {
        .init(method: "getMyShortDescription")
    }

    /// The text of the bot's profile page and of shared links to it (0–120 characters).
    public static func setMyShortDescription(_ text: String) -> TelegramRequest<TelegramOK> {
        .init(method: "setMyShortDescription", parameters: ["short_description": .string(text)])
    }

    /// Removes a webhook so that long polling works; pending updates are kept.
    public static func deleteWebhook() -> TelegramRequest<TelegramOK> {
        .init(method: "deleteWebhook", parameters: ["drop_pending_updates": .bool(false)])
    }

    public static func getChatAdministrators(chatID: Int64) -> TelegramRequest<[ChatMember]> {
        .init(method: "getChatAdministrators", parameters: ["chat_id": .int(chatID)])
    }
}

/// An update as it arrived: read leniently, so that one whose content does not read keeps its
/// id (the poller can still confirm it) with the rest `nil`, and its JSON as Telegram sent
/// it, which the journal keeps until the update is handled.
public struct ReceivedUpdate: JSONReadable, Sendable {
    public var update: Update
    public var json: [UInt8]

    public init(json node: JSONNode) throws {
        if let update = try? Update(json: node) {
            self.update = update
        } else {
            update = Update(updateID: try node.required("update_id") { $0.int64 })
        }
        json = Array(node.source)
    }

    /// An update made here rather than received (a test's, say), with its JSON encoded.
    public init(_ update: Update) {
        self.update = update
        json = (try? JSONEncoder().encode(update)).map { [UInt8]($0) } ?? []
    }
}
