/// The message an edit changes, named as the Bot API names it: by chat and message id, or
/// by the `inline_message_id` of a message sent in inline mode. The edit methods take
/// either; only their answers differ (the message, or `true` for an inline one).
enum EditedMessage {
    case chat(Int64, message: Int64)
    case inline(String)

    /// `editMessageText`'s parameters: HTML text, no link preview.
    func text(_ html: String, keyboard: InlineKeyboard?) -> [String: JSONValue] {
        with(["text": .string(html), "parse_mode": .string("HTML"), "link_preview_options": .object(["is_disabled": .bool(true)])], keyboard)
    }

    /// `editMessageCaption`'s parameters: an HTML caption.
    func caption(_ captionHTML: String, keyboard: InlineKeyboard?) -> [String: JSONValue] {
        with(["caption": .string(captionHTML), "parse_mode": .string("HTML")], keyboard)
    }

    /// `editMessageMedia`'s parameters for a photo with an HTML caption, and the upload, if
    /// any, that its `attach://` names.
    func photo(_ photo: PhotoSource, captionHTML: String, keyboard: InlineKeyboard?) -> ([String: JSONValue], [String: InputFile]) {
        var media: [String: JSONValue] = ["type": .string("photo"), "caption": .string(captionHTML), "parse_mode": .string("HTML")]
        var attachments: [String: InputFile] = [:]
        switch photo {
        case .upload(let file):
            attachments["photo"] = file
            media["media"] = .string("attach://photo")
        case .fileID(let id):
            media["media"] = .string(id)
        }
        return (with(["media": .object(media)], keyboard), attachments)
    }

    private func with(_ fields: [String: JSONValue], _ keyboard: InlineKeyboard?) -> [String: JSONValue] {
        var parameters = fields
        switch self {
        case .chat(let chat, let message):
            parameters["chat_id"] = .int(chat)
            parameters["message_id"] = .int(message)
        case .inline(let id):
            parameters["inline_message_id"] = .string(id)
        }
        if let keyboard { parameters["reply_markup"] = keyboard.json }
        return parameters
    }
}
