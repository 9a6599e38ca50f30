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

    /// Whether the call may go again when it may have arrived: all do but those that post a
    /// new message, which would then show twice. An edit made twice changes nothing more
    /// (Telegram answers the repeat "message is not modified").
    public var isRepeatable: Bool { method != "sendMessage" && method != "sendPhoto" }

    /// The same call, its answer read as `Other`.
    public func answered<Other>(as: Other.Type) -> TelegramRequest<Other> {
        var copy = TelegramRequest<Other>(method: method, attachments: attachments, timeout: timeout)
        copy.storage = storage
        copy.patience = patience
        return copy
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
