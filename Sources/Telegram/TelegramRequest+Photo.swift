// Photo calls: a picture swapped for another, or dropped for its caption.
extension TelegramRequest {
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
}
