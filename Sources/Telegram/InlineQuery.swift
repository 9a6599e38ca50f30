import Networking

/// Someone typing `@bot …` in any chat: Telegram sends one per keystroke, and shows the
/// results of whichever it gets an answer to while the text is still the same.
public struct InlineQuery: Codable, JSONReadable, Sendable, Equatable {
    public var id: String
    public var from: User
    /// What follows the bot's username, up to 256 characters.
    public var query: String

    public init(id: String, from: User, query: String) {
        self.id = id
        self.from = from
        self.query = query
    }

    public init(json: JSONNode) throws {
        id = try json.required("id") { $0.string }
        from = try json.required("from", as: User.self)
        query = try json.required("query") { $0.string }
    }

    public init(from decoder: any Decoder) throws {
        try self.init(json: JSONNode(decoding: decoder))
    }
}

/// A result of an inline query that someone sent. Telegram reports these only when the bot's
/// inline feedback is on (BotFather's `/setinlinefeedback`).
public struct ChosenInlineResult: Codable, JSONReadable, Sendable, Equatable {
    public var resultID: String
    public var from: User
    public var query: String
    /// The message it became; only when the result carries an inline keyboard.
    public var inlineMessageID: String?

    enum CodingKeys: String, CodingKey {
        case resultID = "result_id", from, query, inlineMessageID = "inline_message_id"
    }

    public init(resultID: String, from: User, query: String, inlineMessageID: String? = nil) {
        self.resultID = resultID
        self.from = from
        self.query = query
        self.inlineMessageID = inlineMessageID
    }

    public init(json: JSONNode) throws {
        resultID = try json.required("result_id") { $0.string }
        from = try json.required("from", as: User.self)
        query = try json.required("query") { $0.string }
        inlineMessageID = try json.optional("inline_message_id") { $0.string }
    }

    public init(from decoder: any Decoder) throws {
        try self.init(json: JSONNode(decoding: decoder))
    }
}

/// One result offered under an inline query.
public enum InlineQueryResult: Sendable, Equatable {
    /// Text sent as HTML when chosen.
    case article(id: String, title: String, description: String?, html: String, keyboard: InlineKeyboard? = nil)
    /// A picture Telegram already has (by `file_id`), sent with an HTML caption when chosen:
    /// an inline result can show no picture that was never uploaded.
    case cachedPhoto(id: String, fileID: String, title: String, captionHTML: String, keyboard: InlineKeyboard? = nil)

    public var id: String {
        switch self {
        case .article(let id, _, _, _, _), .cachedPhoto(let id, _, _, _, _): id
        }
    }

    var json: JSONValue {
        var object: [String: JSONValue]
        let keyboard: InlineKeyboard?
        switch self {
        case let .article(id, title, description, html, markup):
            object = [
                "type": .string("article"), "id": .string(id), "title": .string(title),
                "input_message_content": .object([
                    "message_text": .string(html), "parse_mode": .string("HTML"),
                    "link_preview_options": .object(["is_disabled": .bool(true)]),
                ]),
            ]
            if let description { object["description"] = .string(description) }
            keyboard = markup
        case let .cachedPhoto(id, fileID, title, captionHTML, markup):
            object = [
                "type": .string("photo"), "id": .string(id), "photo_file_id": .string(fileID), "title": .string(title),
                "caption": .string(captionHTML), "parse_mode": .string("HTML"),
            ]
            keyboard = markup
        }
        if let keyboard { object["reply_markup"] = keyboard.json }
        return .object(object)
    }
}

/// The button above inline results that opens a private chat with the bot, which receives
/// `/start <startParameter>`.
public struct InlineQueryResultsButton: Sendable, Equatable {
    public var text: String
    /// 1–64 characters of `A–Z`, `a–z`, `0–9`, `_` and `-`.
    public var startParameter: String

    public init(text: String, startParameter: String) {
        self.text = text
        self.startParameter = startParameter
    }
}

extension TelegramRequest where Response == TelegramOK {
    /// Replaces the text (and keyboard) of a message sent in inline mode.
    public static func editInlineMessageText(_ inlineMessageID: String, html: String, keyboard: InlineKeyboard? = nil) -> TelegramRequest<TelegramOK> {
        .init(method: "editMessageText", parameters: EditedMessage.inline(inlineMessageID).text(html, keyboard: keyboard))
    }

    /// Replaces the photo and caption of a message sent in inline mode: only by `file_id`,
    /// since Telegram takes no upload into an inline message.
    public static func editInlineMessagePhoto(
        _ inlineMessageID: String, fileID: String, captionHTML: String, keyboard: InlineKeyboard? = nil
    ) -> TelegramRequest<TelegramOK> {
        let (parameters, _) = EditedMessage.inline(inlineMessageID).photo(.fileID(fileID), captionHTML: captionHTML, keyboard: keyboard)
        return .init(method: "editMessageMedia", parameters: parameters)
    }

    /// Replaces the caption (and keyboard) of a photo sent in inline mode.
    public static func editInlineMessageCaption(_ inlineMessageID: String, captionHTML: String, keyboard: InlineKeyboard? = nil) -> TelegramRequest<TelegramOK> {
        .init(method: "editMessageCaption", parameters: EditedMessage.inline(inlineMessageID).caption(captionHTML, keyboard: keyboard))
    }

    /// Answers an inline query with at most 50 results.
    ///
    /// - Parameters:
    ///   - cacheTime: how long Telegram may show these results for the same query text.
    ///   - isPersonal: the results depend on who asks, so Telegram caches them per person.
    public static func answerInlineQuery(
        id: String, results: [InlineQueryResult], cacheTime: Int, isPersonal: Bool, button: InlineQueryResultsButton? = nil
    ) -> TelegramRequest<TelegramOK> {
        var parameters: [String: JSONValue] = [
            "inline_query_id": .string(id), "results": .array(results.map(\.json)),
            "cache_time": .int(Int64(cacheTime)), "is_personal": .bool(isPersonal),
        ]
        if let button {
            parameters["button"] = .object(["text": .string(button.text), "start_parameter": .string(button.startParameter)])
        }
        return .init(method: "answerInlineQuery", parameters: parameters)
    }
}
