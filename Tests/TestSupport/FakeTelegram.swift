import Foundation
import Networking
import Telegram

/// A Bot API server on loopback, as strict as the real one where the bot could go wrong:
///
/// - `getUpdates` long-polls; an update is confirmed only by a later poll whose offset is
///   higher than its id, once it was delivered; `renumberUpdates(from:)` restarts the
///   numbering lower, as Telegram does after a quiet week; a second poller gets 409.
/// - Every method takes a JSON body or a `multipart/form-data` one (parsed strictly; a
///   malformed form answers 400), whose fields it reads by each parameter's type.
/// - Messages are checked like Telegram checks them: HTML must parse (only Telegram's tags,
///   every `<`, `>` and `&` escaped), text is 1–4096 UTF-16 units once parsed, callback
///   data at most 64 bytes, a forum topic must exist, a chat that is gone answers 403 or
///   400, and flood limits (one message a second per chat, 20 a minute per group, 30 a
///   second overall) answer 429 with a `retry_after`.
/// - `sendPhoto` takes an uploaded JPEG or PNG (non-empty, at most 10 MB) or a file_id the
///   fake issued, with a caption under the same HTML rules but 0–1024 units long. Each
///   upload gets a new file_id; the answer lists three sizes, the largest last.
/// - `editMessageText`, `editMessageMedia` (an `InputMediaPhoto` whose `attach://` part must
///   be in the body) and `editMessageCaption` need a message the bot sent, of the right
///   kind (text for the first, photo for the others), and refuse an edit that changes
///   nothing ("message is not modified"); `answerCallbackQuery` takes each query once.
/// - `sendChatAction` takes only the actions the Bot API documents, in a chat the bot can
///   post to (and an existing forum topic, if given).
/// - A button press on a photo the bot posted carries the photo and its caption, not a text.
/// - `getUpdates` keeps the last `allowed_updates` it was given (until then, as after an empty
///   list, every kind but `chat_member` and reactions), and an update of a kind left out is
///   never queued, as the Bot API's `getUpdates` documents.
/// - The bot can be removed from a chat and added back: each sends a `my_chat_member` update
///   in the Bot API's `ChatMemberUpdated` shape, and posts to the chat get 403 meanwhile.
/// - An inline answer is kept for its `cache_time` (300 s if none), for everyone who types the
///   same text or, with `is_personal`, for its asker alone; `typeInline` shows the kept one
///   without asking the bot, as the Bot API's `answerInlineQuery` documents.
/// - Faults can be injected per method, once or until cleared (an outage).
/// - A webhook can be set, and updates are then posted to it (`FakeTelegram+Webhook`).
public actor FakeTelegram {
    /// One call the fake received, with its parameters from a JSON body or a form.
    public struct Call: Sendable {
        public var method: String
        public var body: Data
        public var contentType: String
        /// The parts of a `multipart/form-data` body; nil for JSON, or for a form that did not parse.
        public var form: MultipartForm?

        /// Form fields are read as Telegram reads them: by the parameter's type, not by how
        /// the text looks (a caption "42" stays text).
        public var parameters: [String: Any] {
            guard let form else { return (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
            return form.fields.reduce(into: [:]) { parameters, field in
                parameters[field.key] = Self.value(of: field.value, named: field.key)
            }
        }

        /// Uploaded files by part name; empty for a JSON body.
        public var files: [String: Data] { form?.files ?? [:] }

        public var chatID: Int64? { (parameters["chat_id"] as? NSNumber)?.int64Value }
        public var text: String? { parameters["text"] as? String }
        /// A photo's caption, given directly or inside `editMessageMedia`'s `media`.
        public var caption: String? {
            let parameters = parameters
            return parameters["caption"] as? String ?? (parameters["media"] as? [String: Any])?["caption"] as? String
        }
        public var threadID: Int64? { (parameters["message_thread_id"] as? NSNumber)?.int64Value }
        public var replyToMessageID: Int64? {
            ((parameters["reply_parameters"] as? [String: Any])?["message_id"] as? NSNumber)?.int64Value
        }
        /// The callback data of each inline button, in order.
        public var buttonData: [String] {
            let markup = parameters["reply_markup"] as? [String: Any]
            let rows = markup?["inline_keyboard"] as? [[[String: Any]]] ?? []
            return rows.flatMap { $0 }.compactMap { $0["callback_data"] as? String }
        }

        private static let numberFields: Set<String> = ["chat_id", "message_id", "message_thread_id", "offset", "limit", "timeout"]
        private static let jsonFields: Set<String> = [
            "reply_markup", "reply_parameters", "link_preview_options", "media", "allowed_updates", "commands", "scope",
        ]
        private static let boolFields: Set<String> = ["drop_pending_updates", "show_alert", "disable_notification"]

        private static func value(of text: String, named name: String) -> Any {
            if numberFields.contains(name), let number = Int64(text) { return NSNumber(value: number) }
            if jsonFields.contains(name), let value = try? JSONSerialization.jsonObject(with: Data(text.utf8)) { return value }
            if boolFields.contains(name), text == "true" || text == "false" { return text == "true" }
            return text
        }
    }

    /// A call the fake refused on its own, the way Telegram would.
    public struct Refusal: Sendable {
        public var method: String
        public var code: Int
        public var description: String
    }

    public enum Fault: Sendable {
        /// A Bot API error answer.
        case error(code: Int, description: String, retryAfter: Int? = nil, migrateTo: Int64? = nil)
        /// Any status and raw body.
        case raw(status: Int, body: String)
        /// Never answers (until the server stops): the client's timeout must fire.
        case hang
        /// Takes the call only once the gate opens, then answers it as usual: a slow Telegram.
        case held(Gate)
    }

    /// How a chat the bot can no longer post to answers.
    public enum Gone: Sendable {
        case blocked
        case notFound
    }

    /// Telegram's service accounts.
    public static let groupAnonymousBot: Int64 = 1_087_968_824
    public static let channelForwarder: Int64 = 777_000

    public nonisolated let token: String
    public nonisolated let botUsername: String
    public private(set) var calls: [Call] = []
    /// Messages that were accepted (answered ok), in order: posts and edits, text and photo.
    public private(set) var delivered: [Call] = []
    /// Calls the fake refused because they broke one of Telegram's rules.
    public private(set) var refusals: [Refusal] = []
    public var administrators: [Int64: [Int64]] = [:]
    /// The ids of the messages `sendMessage` and `sendPhoto` created, in order.
    public private(set) var sentMessageIDs: [Int64] = []
    /// The bytes of every upload the fake accepted (`sendPhoto`, `editMessageMedia`), in order.
    public private(set) var uploadedPhotos: [Data] = []
    /// Inline answers that Telegram took.
    public private(set) var inlineAnswers: [InlineAnswer] = []
    /// Messages sent in inline mode, by inline_message_id, as they read now.
    public private(set) var inlineMessages: [String: InlineMessage] = [:]
    /// Edits of inline messages that Telegram took.
    public private(set) var inlineEdits: [Call] = []
    /// Chat actions ("typing…") that Telegram took, in order.
    public private(set) var chatActions: [Call] = []

    /// A message sent in inline mode: its text or caption, its photo's file_id, its buttons.
    public struct InlineMessage: Sendable, Equatable {
        public var text: String
        public var photo: String?
        public var buttons: [String]
    }

    /// An answer to an inline query, as Telegram took it.
    public struct InlineAnswer: Sendable {
        public var call: Call

        public var queryID: String { call.parameters["inline_query_id"] as? String ?? "" }
        public var results: [[String: Any]] { call.parameters["results"] as? [[String: Any]] ?? [] }
        public var button: [String: Any]? { call.parameters["button"] as? [String: Any] }

        /// Each result's type and id, e.g. `photo:y3`.
        public var summary: [String] { results.map { "\($0["type"] as? String ?? "?"):\($0["id"] as? String ?? "?")" } }
    }
    /// The command names of each menu without a language, by scope type ("default",
    /// "all_chat_administrators", …).
    public private(set) var menus: [String: [String]] = [:]
    /// Every menu, by language code ("" for none), then scope type: each command's description.
    public private(set) var localizedMenus: [String: [String: [String: String]]] = [:]
    /// The bot's description and short description without a language, as `setMyDescription`
    /// and `setMyShortDescription` left them.
    public var botDescription: String { botDescriptions[""] ?? "" }
    public var botShortDescription: String { botShortDescriptions[""] ?? "" }
    /// The same, by language code ("" for none).
    public private(set) var botDescriptions: [String: String] = [:]
    public private(set) var botShortDescriptions: [String: String] = [:]
    /// Acts like a Telegram that never saw the confirming poll: updates are delivered again.
    public var ignoresConfirmations = false

    struct Pending {
        var id: Int64
        var body: [String: Any]
        var delivered = false
    }

    private struct Posted {
        /// The text, or a photo's caption.
        var text: String
        var markup: String
        /// The file_id of the photo's largest size; nil for a text message.
        var photo: String?
    }

    /// The photo a post names: one to upload, or one the fake already holds.
    private enum PhotoChoice {
        case upload(Data)
        /// By the file_id of its largest size.
        case existing(String)
    }

    /// A 400 answer's description, without the "Bad Request: " prefix.
    private struct BadRequest: Error {
        var description: String
    }

    var pending: [Pending] = []
    private var nextUpdateID: Int64 = 1
    private var nextMessageID: Int64 = 1000
    private var nextQueryID = 1
    private var faults: [(method: String, chat: Int64?, fault: Fault)] = []
    private var outages: [String: Fault] = [:]
    private var updateWaiters: [CheckedContinuation<Void, Never>] = []
    /// A wait for `count` calls of `method`.
    private struct MethodCount: Sendable {
        let method: String
        let count: Int
    }

    private let callWaiters = Waitlist<MethodCount>()
    private let deliveryWaiters = Waitlist<Int>()
    private var server: FakeHTTPServer?
    private var stopped = false
    private let forever = Gate()
    private var pollGeneration = 0
    /// Polls whose timeout passed.
    private var expired: Set<Int> = []
    /// The ids in the last answer to `getUpdates`, to tell whether the next poll saw it.
    private var lastAnswered: [Int64] = []
    private var posted: [Int64: [Int64: Posted]] = [:]
    private var openQueries: Set<String> = []
    /// Inline queries not answered yet: each takes one answer.
    private var openInlineQueries: Set<String> = []
    /// Who asked each inline query, and its text, for the chosen result that may follow.
    private var inlineQueries: [String: (from: [String: Any], text: String)] = [:]
    private var forumTopics: [Int64: Set<Int64>] = [:]
    private var gone: [Int64: Gone] = [:]
    /// Groups that became supergroups, to their new ids.
    private var upgraded: [Int64: Int64] = [:]
    /// The kinds of update the bot last asked for; nil: Telegram's default.
    var allowedUpdates: Set<String>?
    /// What `setWebhook` set; its URL is nil while there is none.
    var webhook = Webhook()
    /// Inline answers Telegram keeps, by query text and, for a personal one, its asker.
    private var keptInlineAnswers: [InlineCacheKey: (answer: InlineAnswer, until: Duration)] = [:]

    private struct InlineCacheKey: Hashable {
        var text: String
        var asker: Int64?
    }
    private var elapsed: @Sendable () -> Duration
    private var perChatSends: [Int64: [Duration]] = [:]
    private var recentSends: [Duration] = []
    /// Every file_id issued, of any size, to the file_id of its photo's largest size.
    private var photoIDs: [String: String] = [:]
    /// Each photo's bytes, by the file_id of its largest size.
    private var photoFiles: [String: Data] = [:]
    private var nextPhotoNumber = 1

    public init(token: String = "123456:TEST-token_for-the-fake-0123456789a", botUsername: String = "TheBot") {
        self.token = token
        self.botUsername = botUsername
        self.elapsed = ElapsedClock(ContinuousClock()).elapsed
    }

    /// Starts serving; returns the base URL to configure as `TELEGRAM_API_URL`.
    public func start() async throws -> URL {
        let server = try await FakeHTTPServer.start { [self] request in await self.handle(request) }
        self.server = server
        return server.baseURL
    }

    public func stop() async {
        stopped = true
        for waiter in updateWaiters { waiter.resume() }
        updateWaiters = []
        await forever.open()
        await server?.stop()
    }

    /// Measures flood limits on `clock`: the clock the bot under test waits on.
    public func useClock(_ clock: any Clock<Duration>) {
        elapsed = ElapsedClock(clock).elapsed
        perChatSends = [:]
        recentSends = []
    }

    /// The number of 429 answers the fake gave on its own.
    public var tooManyRequests: Int { refusals.filter { $0.code == 429 }.count }

    /// Posts that arrived while another post to the same chat was still unanswered. Telegram
    /// takes them, but in no set order, and counts both against the chat's flood limit: a bot
    /// that keeps its chats' messages in order and within the limits never does this.
    public private(set) var overlappingPosts = 0
    /// Posts and edits per chat that have arrived and not been answered yet.
    private var unanswered: [Int64: Int] = [:]

    // MARK: Scripting

    /// Queues a text message from `userID` in `chatID`; returns its update id.
    ///
    /// - Parameters:
    ///   - topic: a forum topic of `chatID` (which becomes a forum) that the message is in.
    ///   - anonymousAdmin: sent by a group admin posting as the group.
    @discardableResult
    public func pushMessage(
        _ text: String, chatID: Int64, chatType: String = "group", userID: Int64 = 7, messageID: Int64? = nil,
        topic: Int64? = nil, anonymousAdmin: Bool = false, languageCode: String = "en"
    ) -> Int64 {
        let id = messageID ?? nextMessage()
        var chat: [String: Any] = ["id": chatID, "type": chatType, "title": "Test chat"]
        var message: [String: Any] = ["message_id": id, "date": 1_700_000_000, "text": text, "chat": chat]
        if anonymousAdmin {
            message["from"] = ["id": Self.groupAnonymousBot, "is_bot": true, "first_name": "Group", "username": "GroupAnonymousBot"]
            message["sender_chat"] = chat
        } else {
            message["from"] = ["id": userID, "is_bot": false, "first_name": "User \(userID)", "language_code": languageCode]
        }
        if let topic {
            forumTopics[chatID, default: []].insert(topic)
            chat["type"] = "supergroup"
            chat["is_forum"] = true
            message["chat"] = chat
            message["message_thread_id"] = topic
            message["is_topic_message"] = true
        }
        return push(["message": message])
    }

    /// Queues a linked channel's post as Telegram forwards it into the discussion group.
    @discardableResult
    public func pushAutomaticForward(_ text: String, chatID: Int64, channelID: Int64) -> Int64 {
        push(["message": [
            "message_id": nextMessage(), "date": 1_700_000_000, "text": text, "is_automatic_forward": true,
            "chat": ["id": chatID, "type": "supergroup", "title": "Discussion"],
            "sender_chat": ["id": channelID, "type": "channel", "title": "Channel"],
            "from": ["id": Self.channelForwarder, "is_bot": false, "first_name": "Telegram"],
        ] as [String: Any]])
    }

    /// Queues a post in a channel where the bot is an admin, as its admins post: on behalf of
    /// the channel, with no `from`.
    @discardableResult
    public func pushChannelPost(_ text: String, channelID: Int64) -> Int64 {
        let channel: [String: Any] = ["id": channelID, "type": "channel", "title": "Channel"]
        return push(["channel_post": [
            "message_id": nextMessage(), "date": 1_700_000_000, "text": text, "chat": channel, "sender_chat": channel,
        ] as [String: Any]])
    }

    /// Sets the administrators of a chat, for `getChatAdministrators`.
    public func setAdministrators(_ ids: [Int64], of chat: Int64) {
        administrators[chat] = ids
    }

    public func setIgnoresConfirmations(_ value: Bool) {
        ignoresConfirmations = value
    }

    /// Makes `chat` refuse posts: the bot was blocked or removed (403), or the chat is gone (400).
    public func setGone(_ chat: Int64, _ how: Gone = .blocked) {
        gone[chat] = how
    }

    /// `group` becomes the supergroup `supergroup`: from now on a post to the old id is refused
    /// with 400 and `migrate_to_chat_id`, as Telegram refuses it. With `announce`, the old
    /// group's service message saying so is queued, as Telegram sends it.
    public func upgradeGroup(_ group: Int64, to supergroup: Int64, announce: Bool = true) {
        upgraded[group] = supergroup
        guard announce else { return }
        push(["message": [
            "message_id": nextMessage(), "date": 1_700_000_000, "chat": ["id": group, "type": "group", "title": "Test chat"],
            "from": ["id": 7, "is_bot": false, "first_name": "User 7"], "migrate_to_chat_id": supergroup,
        ] as [String: Any]])
    }

    /// The bot is removed from `chat` by user `by` (`kicked` in a group or channel; in a private
    /// chat, the person blocked it): posts there get 403 from now on, and Telegram tells the bot.
    public func removeBot(from chat: Int64, chatType: String = "group", by user: Int64 = 7, status: String = "kicked") {
        gone[chat] = .blocked
        pushMembership(chat: chat, chatType: chatType, by: user, from: "member", to: status)
    }

    /// The bot is added back to `chat` (or unblocked): it may post there again, and Telegram tells it.
    public func addBot(to chat: Int64, chatType: String = "group", by user: Int64 = 7, status: String = "member") {
        gone[chat] = nil
        pushMembership(chat: chat, chatType: chatType, by: user, from: "kicked", to: status)
    }

    private func pushMembership(chat: Int64, chatType: String, by user: Int64, from old: String, to new: String) {
        let bot: [String: Any] = ["id": 42, "is_bot": true, "first_name": "Vinylogue", "username": botUsername]
        push(["my_chat_member": [
            "chat": ["id": chat, "type": chatType, "title": "Test chat"],
            "from": ["id": user, "is_bot": false, "first_name": "User \(user)"], "date": 1_700_000_000 + nextUpdateID,
            "old_chat_member": ["status": old, "user": bot] as [String: Any],
            "new_chat_member": (new == "kicked" ? ["status": new, "user": bot, "until_date": 0] : ["status": new, "user": bot]) as [String: Any],
        ] as [String: Any]])
    }

    /// From now on, updates are numbered from `id`, as Telegram does after a week without updates.
    public func renumberUpdates(from id: Int64) {
        nextUpdateID = id
    }

    /// Queues a button press on message `messageID` (nil: no message at all; `inaccessible`:
    /// the message is one the bot can no longer see, which Telegram sends with date 0).
    @discardableResult
    public func pushCallback(data: String, chatID: Int64, messageID: Int64?, userID: Int64 = 7, inaccessible: Bool = false) -> Int64 {
        let queryID = "q\(nextQueryID)"
        nextQueryID += 1
        openQueries.insert(queryID)
        var query: [String: Any] = [
            "id": queryID, "data": data, "chat_instance": "ci",
            "from": ["id": userID, "is_bot": false, "first_name": "User \(userID)"],
        ]
        if let messageID {
            var message: [String: Any] = ["message_id": messageID, "date": 0, "chat": ["id": chatID, "type": "group"]]
            if !inaccessible {
                message["date"] = 1_700_000_000
                // Like Telegram, a photo comes with its sizes and caption instead of a text.
                if let photo = posted[chatID]?[messageID], let fileID = photo.photo {
                    message["photo"] = photoSizes(fileID)
                    message["caption"] = photo.text
                } else {
                    message["text"] = "…"
                }
            }
            query["message"] = message
        }
        return push(["callback_query": query])
    }

    /// Queues an inline query, as Telegram sends one per keystroke of `@bot …`; returns its id.
    @discardableResult
    public func pushInlineQuery(_ text: String, userID: Int64 = 7) -> String {
        let queryID = "i\(nextQueryID)"
        nextQueryID += 1
        openInlineQueries.insert(queryID)
        let from: [String: Any] = ["id": userID, "is_bot": false, "first_name": "User \(userID)"]
        inlineQueries[queryID] = (from, text)
        push(["inline_query": ["id": queryID, "query": text, "offset": "", "chat_type": "sender", "from": from]])
        return queryID
    }

    /// Someone types `text` after the bot's username: Telegram shows an answer it still keeps
    /// for that text (one for everyone, or one personal to them), without asking the bot;
    /// else it asks the bot, and nil is returned.
    public func typeInline(_ text: String, userID: Int64 = 7) -> InlineAnswer? {
        let now = elapsed()
        for key in [InlineCacheKey(text: text, asker: userID), InlineCacheKey(text: text, asker: nil)] {
            if let kept = keptInlineAnswers[key], now < kept.until { return kept.answer }
        }
        pushInlineQuery(text, userID: userID)
        return nil
    }

    /// Queues a raw update body (the fake adds `update_id`); returns its id.
    @discardableResult
    public func push(_ update: [String: Any]) -> Int64 {
        var update = update
        let id = nextUpdateID
        // Telegram never makes an update of a kind the bot did not ask for.
        let kind = update.keys.first { $0 != "update_id" } ?? ""
        guard allowedUpdates?.contains(kind) ?? !["chat_member", "message_reaction", "message_reaction_count"].contains(kind) else { return id }
        nextUpdateID += 1
        update["update_id"] = id
        pending.append(Pending(id: id, body: update))
        for waiter in updateWaiters { waiter.resume() }
        updateWaiters = []
        return id
    }

    /// The next `times` calls of `method` get `fault`.
    /// The next `times` calls of `method` (to `chat` only, if given) get `fault`.
    public func inject(_ fault: Fault, method: String, chat: Int64? = nil, times: Int = 1) {
        for _ in 0..<times { faults.append((method, chat, fault)) }
    }

    /// Every call of `method` gets `fault` until `endOutage(of:)`.
    public func beginOutage(of method: String, _ fault: Fault) {
        outages[method] = fault
    }

    public func endOutage(of method: String) {
        outages[method] = nil
    }

    /// Calls of `method`.
    public func calls(_ method: String) -> [Call] {
        calls.filter { $0.method == method }
    }

    /// What photo message `messageID` in `chat` shows now: the file_id of its largest size and
    /// its caption. Nil unless it is a photo the bot posted.
    public func photoMessage(chat: Int64, messageID: Int64) -> (fileID: String, caption: String)? {
        guard let message = posted[chat]?[messageID], let photo = message.photo else { return nil }
        return (photo, message.text)
    }

    /// What text message `messageID` in `chat` shows now. Nil unless it is a text the bot posted.
    public func textMessage(chat: Int64, messageID: Int64) -> String? {
        guard let message = posted[chat]?[messageID], message.photo == nil else { return nil }
        return message.text
    }

    /// The bytes of the photo that `fileID` (of any of its sizes) names; nil for an id the fake never issued.
    public func photoData(fileID: String) -> Data? {
        photoIDs[fileID].flatMap { photoFiles[$0] }
    }

    /// Returns once the fake has accepted `count` messages (posts and edits) in all.
    public func waitForDeliveries(_ count: Int) async throws {
        if delivered.count >= count { return }
        try await deliveryWaiters.wait(for: count)
    }

    /// Returns once the fake has received `count` calls of `method`.
    public func waitForCalls(_ method: String, count: Int = 1) async throws {
        if calls(method).count >= count { return }
        try await callWaiters.wait(for: MethodCount(method: method, count: count))
    }

    // MARK: Serving

    /// The methods that post or edit a message in a chat.
    private static let postingMethods: Set<String> = ["sendMessage", "editMessageText", "sendPhoto", "editMessageMedia", "editMessageCaption"]

    private func nextMessage() -> Int64 {
        nextMessageID += 1
        return nextMessageID
    }

    private func handle(_ request: FakeRequest) async -> FakeResponse {
        let parts = request.path.split(separator: "/")
        guard parts.count == 2, parts[0] == "bot\(token)" else {
            return .json(#"{"ok":false,"error_code":401,"description":"Unauthorized"}"#, status: 401)
        }
        let method = String(parts[1])
        let contentType = request.headers["content-type"] ?? ""
        var call = Call(method: method, body: request.body, contentType: contentType)
        var formProblem: String?
        if MultipartForm.isMultipart(contentType) {
            do {
                call.form = try MultipartForm(body: request.body, contentType: contentType)
            } catch {
                formProblem = "\(error)"
            }
        }
        calls.append(call)
        callWaiters.resume { waiter in calls(waiter.method).count >= waiter.count }
        if let formProblem { return refuse(method, 400, "Bad Request: can't parse multipart/form-data: \(formProblem)") }
        if Self.postingMethods.contains(method), let chat = call.chatID {
            if unanswered[chat, default: 0] > 0 { overlappingPosts += 1 }
            unanswered[chat, default: 0] += 1
        }
        defer {
            if Self.postingMethods.contains(method), let chat = call.chatID { unanswered[chat, default: 1] -= 1 }
        }

        let fault: Fault?
        if let index = faults.firstIndex(where: { $0.method == method && ($0.chat == nil || $0.chat == call.chatID) }) {
            fault = faults.remove(at: index).fault
        } else {
            fault = outages[method]
        }
        if let fault {
            switch fault {
            case let .error(code, description, retryAfter, migrateTo):
                return error(code, description, retryAfter: retryAfter, migrateTo: migrateTo)
            case let .raw(status, body):
                return FakeResponse(status: status, body: Data(body.utf8))
            case .hang:
                await forever.wait()
                return error(500, "stopped")
            case .held(let gate):
                await gate.wait()
            }
        }
        switch method {
        case "getMe":
            return ok(["id": 42, "is_bot": true, "first_name": "Vinylogue", "username": botUsername, "can_join_groups": true])
        case "getUpdates":
            if webhook.url != nil {
                return refuse(method, 409, "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first")
            }
            if let kinds = call.parameters["allowed_updates"] as? [String] { allowedUpdates = kinds.isEmpty ? nil : Set(kinds) }
            return await poll(
                offset: (call.parameters["offset"] as? NSNumber)?.int64Value, timeout: (call.parameters["timeout"] as? NSNumber)?.intValue ?? 0,
                limit: min(max((call.parameters["limit"] as? NSNumber)?.intValue ?? 100, 1), 100)
            )
        case _ where Self.postingMethods.contains(method):
            return post(call)
        case "answerInlineQuery":
            return answerInlineQuery(call)
        case "sendChatAction":
            return chatAction(call)
        case "answerCallbackQuery":
            let id = call.parameters["callback_query_id"] as? String ?? ""
            guard openQueries.remove(id) != nil else {
                return refuse(method, 400, "Bad Request: query is too old and response timeout expired or query ID is invalid")
            }
            if let text = call.parameters["text"] as? String, text.count > 200 {
                return refuse(method, 400, "Bad Request: MESSAGE_TOO_LONG")
            }
            return ok(true)
        case "getChatAdministrators":
            let ids = administrators[call.chatID ?? 0] ?? []
            return ok(ids.map { ["status": "administrator", "user": ["id": $0, "is_bot": false, "first_name": "Admin"]] })
        case "setMyCommands":
            // As the Bot API documents setMyCommands (core.telegram.org/bots/api#setmycommands):
            // at most 100 commands of 1–32 lowercase letters, digits and _, descriptions of
            // 1–256 characters; `language_code` two-letter ISO 639-1, or empty for everyone.
            guard let language = languageCode(of: call) else { return refuse(method, 400, "Bad Request: invalid language code specified") }
            let commands = call.parameters["commands"] as? [[String: Any]] ?? []
            let valid = commands.count <= 100 && commands.allSatisfy { command in
                let name = command["command"] as? String ?? ""
                let description = command["description"] as? String ?? ""
                return (1...32).contains(name.count) && name.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "_" }
                    && (1...256).contains(description.count)
            }
            let scope = (call.parameters["scope"] as? [String: Any])?["type"] as? String ?? "default"
            let scopes = ["default", "all_private_chats", "all_group_chats", "all_chat_administrators"]
            guard valid else { return refuse(method, 400, "Bad Request: BOT_COMMAND_INVALID") }
            guard scopes.contains(scope) else { return refuse(method, 400, "Bad Request: wrong parameter scope") }
            if language.isEmpty { menus[scope] = commands.compactMap { $0["command"] as? String } }
            localizedMenus[language, default: [:]][scope] = Dictionary(
                commands.map { ($0["command"] as? String ?? "", $0["description"] as? String ?? "") }, uniquingKeysWith: { $1 }
            )
            return ok(true)
        case "setWebhook", "deleteWebhook", "getWebhookInfo":
            return webhookCall(call)
        case "getMyDescription", "getMyShortDescription":
            // Telegram answers a language without one of its own with the default text.
            guard let language = languageCode(of: call) else { return refuse(method, 400, "Bad Request: invalid language code specified") }
            return method == "getMyDescription"
                ? ok(["description": botDescriptions[language] ?? botDescription])
                : ok(["short_description": botShortDescriptions[language] ?? botShortDescription])
        case "setMyDescription", "setMyShortDescription":
            // core.telegram.org/bots/api#setmydescription: 0–512 characters; the short one 0–120.
            let short = method == "setMyShortDescription"
            let text = call.parameters[short ? "short_description" : "description"] as? String ?? ""
            guard let language = languageCode(of: call) else { return refuse(method, 400, "Bad Request: invalid language code specified") }
            guard text.utf16.count <= (short ? 120 : 512) else { return refuse(method, 400, "Bad Request: BOT_DESCRIPTION_INVALID") }
            if short { botShortDescriptions[language] = text } else { botDescriptions[language] = text }
            return ok(true)
        default:
            return ok(true)
        }
    }

    /// Long-polls: confirms what the offset confirms, then waits until some updates are
    /// pending. A newer poll ends an older one with 409, as Telegram does.
    private func poll(offset: Int64?, timeout: Int, limit: Int) async -> FakeResponse {
        pollGeneration += 1
        let generation = pollGeneration
        for waiter in updateWaiters { waiter.resume() }
        updateWaiters = []
        // Like Telegram, answer an empty list once the poll's timeout (real seconds) has passed.
        let expiry = Task { [weak self] in
            try await Task.sleep(for: .seconds(max(timeout, 0)))
            await self?.expire(generation)
        }
        defer { expiry.cancel() }
        if let offset, !ignoresConfirmations {
            if let last = lastAnswered.last, offset > last + 1 {
                // The poller never read the last answer (its connection was gone): an offset
                // from before cannot confirm updates it never saw.
                for index in pending.indices where lastAnswered.contains(pending[index].id) { pending[index].delivered = false }
            }
            pending.removeAll { $0.delivered && $0.id < offset }
        }
        while pending.isEmpty && !stopped && generation == pollGeneration && !expired.contains(generation) {
            await withCheckedContinuation { updateWaiters.append($0) }
        }
        if expired.remove(generation) != nil, pending.isEmpty { return ok([Any]()) }
        if generation != pollGeneration {
            return refuse("getUpdates", 409, "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running")
        }
        // At most `limit` updates an answer (Telegram's cap is 100).
        let answered = pending.indices.prefix(limit)
        for index in answered { pending[index].delivered = true }
        lastAnswered = answered.map { pending[$0].id }
        return ok(answered.map { pending[$0].body })
    }

    private func expire(_ generation: Int) {
        guard generation == pollGeneration else { return }
        expired.insert(generation)
        for waiter in updateWaiters { waiter.resume() }
        updateWaiters = []
    }

    /// Every call that posts or edits a message, text or photo, checked as Telegram checks them.
    private func post(_ call: Call) -> FakeResponse {
        let method = call.method
        if let inlineID = call.parameters["inline_message_id"] as? String { return editInline(call, inlineID) }
        guard let chat = call.chatID else { return refuse(method, 400, "Bad Request: chat_id is empty") }
        if let refusal = goneRefusal(method, chat: chat) { return refusal }
        let html: String
        let photo: PhotoChoice?
        do throws(BadRequest) {
            (html, photo) = try content(of: call)
        } catch {
            return refuse(method, 400, "Bad Request: \(error.description)")
        }
        if call.buttonData.contains(where: { $0.utf8.count > 64 || $0.isEmpty }) {
            return refuse(method, 400, "Bad Request: BUTTON_DATA_INVALID")
        }
        if let thread = call.threadID, forumTopics[chat]?.contains(thread) != true {
            return refuse(method, 400, "Bad Request: message thread not found")
        }
        let markup = (call.parameters["reply_markup"]).flatMap { try? JSONSerialization.data(withJSONObject: $0, options: .sortedKeys) }
            .map { String(decoding: $0, as: UTF8.self) } ?? ""
        let messageID: Int64
        let before: Posted?
        if method.hasPrefix("edit") {
            messageID = (call.parameters["message_id"] as? NSNumber)?.int64Value ?? 0
            guard let message = posted[chat]?[messageID] else { return refuse(method, 400, "Bad Request: message to edit not found") }
            switch method {
            case "editMessageText" where message.photo != nil:
                return refuse(method, 400, "Bad Request: there is no text in the message to edit")
            case "editMessageMedia" where message.photo == nil:
                return refuse(method, 400, "Bad Request: there is no media in the message to edit")
            case "editMessageCaption" where message.photo == nil:
                return refuse(method, 400, "Bad Request: there is no caption in the message to edit")
            default:
                break
            }
            let samePhoto = switch photo {
            case .upload?: false
            case .existing(let id)?: id == message.photo
            case nil: true
            }
            if samePhoto && message.text == html && message.markup == markup {
                return refuse(method, 400, "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message")
            }
            before = message
        } else {
            messageID = nextMessage()
            before = nil
        }
        if let wait = floodWait(chat: chat) {
            return refuse(method, 429, "Too Many Requests: retry after \(wait)", retryAfter: wait)
        }
        let fileID: String? = switch photo {
        case .upload(let data)?: issuePhoto(data)
        case .existing(let id)?: id
        case nil: before?.photo
        }
        posted[chat, default: [:]][messageID] = Posted(text: html, markup: markup, photo: fileID)
        delivered.append(call)
        deliveryWaiters.resume { $0 <= delivered.count }
        if !method.hasPrefix("edit") { sentMessageIDs.append(messageID) }
        var result: [String: Any] = [
            "message_id": messageID, "date": 1_700_000_000,
            "chat": ["id": chat, "type": chat < 0 ? "supergroup" : "private"],
            "from": ["id": 42, "is_bot": true, "first_name": "Vinylogue"],
        ]
        if let fileID {
            result["photo"] = photoSizes(fileID)
            result["caption"] = html
        } else {
            result["text"] = html
        }
        if let thread = call.threadID { result["message_thread_id"] = thread }
        return ok(result)
    }

    /// How a chat the bot can no longer post to answers `method`; nil for a chat it can post to.
    private func goneRefusal(_ method: String, chat: Int64) -> FakeResponse? {
        switch gone[chat] {
        case .blocked?: refuse(method, 403, "Forbidden: bot was kicked from the group chat")
        case .notFound?: refuse(method, 400, "Bad Request: chat not found")
        case nil: upgraded[chat].map { refuse(method, 400, "Bad Request: group chat was upgraded to a supergroup chat", migrateTo: $0) }
        }
    }

    /// The actions the Bot API documents for `sendChatAction`. The server also takes a few
    /// old undocumented names; a bot that used them could break any day, so this fake does not.
    public static let documentedChatActions: Set<String> = [
        "typing", "upload_photo", "record_video", "upload_video", "record_voice", "upload_voice", "upload_document",
        "choose_sticker", "find_location", "record_video_note", "upload_video_note",
    ]

    /// `sendChatAction`, checked in the order telegram-bot-api's `process_send_chat_action_query`
    /// checks it: the action first, then the chat (which must take the bot's posts), then the
    /// topic, which Telegram refuses as it refuses a post to a topic that does not exist.
    private func chatAction(_ call: Call) -> FakeResponse {
        let method = call.method
        guard let action = call.parameters["action"] as? String, Self.documentedChatActions.contains(action) else {
            return refuse(method, 400, "Bad Request: wrong parameter action in request")
        }
        guard let chat = call.chatID else { return refuse(method, 400, "Bad Request: chat_id is empty") }
        if let refusal = goneRefusal(method, chat: chat) { return refusal }
        if let thread = call.threadID, forumTopics[chat]?.contains(thread) != true {
            return refuse(method, 400, "Bad Request: message thread not found")
        }
        chatActions.append(call)
        return ok(true)
    }

    /// The text (or caption) and the photo that `call` asks for, checked as Telegram checks them.
    private func content(of call: Call) throws(BadRequest) -> (html: String, photo: PhotoChoice?) {
        switch call.method {
        case "sendMessage", "editMessageText":
            let html = call.text ?? ""
            if let problem = TelegramHTML.problem(in: html) { throw BadRequest(description: problem) }
            return (html, nil)
        case "sendPhoto":
            let photo: PhotoChoice
            if let upload = call.files["photo"] {
                photo = try checkedUpload(upload)
            } else if let reference = call.parameters["photo"] as? String {
                photo = try resolvePhoto(reference, files: call.files)
            } else {
                throw BadRequest(description: "there is no photo in the request")
            }
            return (try checkedCaption(call.parameters["caption"]), photo)
        case "editMessageMedia":
            guard let media = call.parameters["media"] as? [String: Any] else {
                throw BadRequest(description: "can't parse InputMedia: Can't parse JSON object")
            }
            guard media["type"] as? String == "photo" else { throw BadRequest(description: "can't parse InputMedia: unsupported media type") }
            guard let reference = media["media"] as? String else { throw BadRequest(description: "can't parse InputMedia: media not found") }
            let photo = try resolvePhoto(reference, files: call.files)
            return (try checkedCaption(media["caption"]), photo)
        default:
            // editMessageCaption: the photo stays.
            return (try checkedCaption(call.parameters["caption"]), nil)
        }
    }

    /// A caption may be missing (none) but must otherwise be text that Telegram takes.
    private func checkedCaption(_ value: Any?) throws(BadRequest) -> String {
        guard let value else { return "" }
        guard let html = value as? String else { throw BadRequest(description: "can't parse caption") }
        if let problem = TelegramHTML.captionProblem(in: html) { throw BadRequest(description: problem) }
        return html
    }

    /// A photo named by a string: `attach://<part>` for a file part of the body, or a file_id.
    private func resolvePhoto(_ reference: String, files: [String: Data]) throws(BadRequest) -> PhotoChoice {
        if reference.hasPrefix("attach://") {
            guard let upload = files[String(reference.dropFirst("attach://".count))] else {
                throw BadRequest(description: "wrong file identifier/HTTP URL specified")
            }
            return try checkedUpload(upload)
        }
        guard let fileID = photoIDs[reference] else { throw BadRequest(description: "wrong file identifier/HTTP URL specified") }
        return .existing(fileID)
    }

    /// Telegram decodes every photo it is sent; this fake settles for JPEG's or PNG's signature.
    private func checkedUpload(_ data: Data) throws(BadRequest) -> PhotoChoice {
        let jpeg = data.starts(with: [0xFF, 0xD8, 0xFF])
        let png = data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        guard data.count <= 10 << 20, jpeg || png else { throw BadRequest(description: "IMAGE_PROCESS_FAILED") }
        return .upload(data)
    }

    /// Keeps an accepted upload; returns the file_id of its largest size.
    private func issuePhoto(_ data: Data) -> String {
        let fileID = "photo-\(nextPhotoNumber)"
        nextPhotoNumber += 1
        for id in photoSizes(fileID).compactMap({ $0["file_id"] as? String }) { photoIDs[id] = fileID }
        photoFiles[fileID] = data
        uploadedPhotos.append(data)
        return fileID
    }

    /// A photo's sizes as Telegram lists them, smallest first; the largest has `fileID` itself.
    private func photoSizes(_ fileID: String) -> [[String: Any]] {
        [("-s", 90), ("-m", 320), ("", 800)].map { suffix, side in
            ["file_id": fileID + suffix, "file_unique_id": "unique-" + fileID + suffix, "width": side, "height": side]
        }
    }

    /// Seconds to wait if this post would break a flood limit; records the post otherwise.
    private func floodWait(chat: Int64) -> Int? {
        let now = elapsed()
        recentSends.removeAll { now - $0 >= .seconds(1) }
        if recentSends.count >= 30 { return 1 }
        // One message a second in any chat.
        if let last = perChatSends[chat]?.last, now - last < .seconds(1) { return 1 }
        if chat < 0 {
            var sends = perChatSends[chat, default: []]
            sends.removeAll { now - $0 >= .seconds(60) }
            if sends.count >= 20, let oldest = sends.first {
                return max(1, Int((.seconds(60) - (now - oldest)).seconds.rounded(.up)))
            }
            sends.append(now)
            perChatSends[chat] = sends
        } else {
            perChatSends[chat] = [now]
        }
        recentSends.append(now)
        return nil
    }

    /// Whether the bot's inline feedback is on (BotFather's `/setinlinefeedback`): then a
    /// chosen result is reported to the bot.
    public var inlineFeedback = true

    /// Someone picks result `index` of an inline answer: it is sent, as an inline message
    /// (text, or the photo by its file_id, with the result's keyboard); returns its id. With
    /// feedback on, the bot hears of it, with the message's id where the result has buttons.
    public func choose(_ answer: InlineAnswer, result index: Int) -> String {
        let result = answer.results[index]
        let id = "im\(inlineMessages.count + 1)"
        let markup = result["reply_markup"] as? [String: Any]
        let buttons = (markup?["inline_keyboard"] as? [[[String: Any]]] ?? []).flatMap { $0 }.compactMap { $0["callback_data"] as? String }
        if let fileID = result["photo_file_id"] as? String {
            inlineMessages[id] = InlineMessage(text: result["caption"] as? String ?? "", photo: photoIDs[fileID], buttons: buttons)
        } else {
            let content = result["input_message_content"] as? [String: Any]
            inlineMessages[id] = InlineMessage(text: content?["message_text"] as? String ?? "", photo: nil, buttons: buttons)
        }
        if inlineFeedback, let query = inlineQueries[answer.queryID] {
            var chosen: [String: Any] = ["result_id": result["id"] as? String ?? "", "from": query.from, "query": query.text]
            if !buttons.isEmpty { chosen["inline_message_id"] = id }
            push(["chosen_inline_result": chosen])
        }
        return id
    }

    /// Queues a press of a button on an inline message: Telegram sends its id, and no message.
    @discardableResult
    public func pushInlineCallback(data: String, inlineMessageID: String, userID: Int64 = 7) -> Int64 {
        let queryID = "q\(nextQueryID)"
        nextQueryID += 1
        openQueries.insert(queryID)
        return push(["callback_query": [
            "id": queryID, "data": data, "chat_instance": "ci", "inline_message_id": inlineMessageID,
            "from": ["id": userID, "is_bot": false, "first_name": "User \(userID)"],
        ]])
    }

    /// An edit of an inline message, checked as Telegram checks it: no upload, the right kind
    /// of message, and a change.
    private func editInline(_ call: Call, _ id: String) -> FakeResponse {
        let method = call.method
        guard var message = inlineMessages[id] else { return refuse(method, 400, "Bad Request: MESSAGE_ID_INVALID") }
        guard call.files.isEmpty else { return refuse(method, 400, "Bad Request: can't upload a file to an inline message; send one by file_id") }
        let html: String
        var photo = message.photo
        switch method {
        case "editMessageText":
            guard message.photo == nil else { return refuse(method, 400, "Bad Request: there is no text in the message to edit") }
            html = call.text ?? ""
            if let problem = TelegramHTML.problem(in: html) { return refuse(method, 400, "Bad Request: \(problem)") }
        case "editMessageCaption", "editMessageMedia":
            // editMessageMedia may add a picture to a text message; a caption needs one.
            guard message.photo != nil || method == "editMessageMedia" else {
                return refuse(method, 400, "Bad Request: there is no caption in the message to edit")
            }
            do throws(BadRequest) {
                if method == "editMessageMedia" {
                    let media = call.parameters["media"] as? [String: Any] ?? [:]
                    guard let reference = media["media"] as? String, !reference.hasPrefix("attach://") else {
                        throw BadRequest(description: "can't upload a file to an inline message; send one by file_id")
                    }
                    guard case .existing(let fileID) = try resolvePhoto(reference, files: [:]) else { throw BadRequest(description: "wrong file identifier") }
                    photo = fileID
                    html = try checkedCaption(media["caption"])
                } else {
                    html = try checkedCaption(call.parameters["caption"])
                }
            } catch {
                return refuse(method, 400, "Bad Request: \(error.description)")
            }
        default:
            return refuse(method, 400, "Bad Request: method not supported for inline messages")
        }
        let markup = call.parameters["reply_markup"] as? [String: Any]
        let buttons = (markup?["inline_keyboard"] as? [[[String: Any]]] ?? []).flatMap { $0 }.compactMap { $0["callback_data"] as? String }
        guard html != message.text || photo != message.photo || buttons != message.buttons else {
            return refuse(method, 400, "Bad Request: message is not modified")
        }
        message = InlineMessage(text: html, photo: photo, buttons: buttons)
        inlineMessages[id] = message
        inlineEdits.append(call)
        return ok(true)
    }

    /// Checks an inline answer as Telegram does, and keeps it.
    private func answerInlineQuery(_ call: Call) -> FakeResponse {
        let method = call.method
        let id = call.parameters["inline_query_id"] as? String ?? ""
        guard openInlineQueries.remove(id) != nil else {
            return refuse(method, 400, "Bad Request: query is too old and response timeout expired or query ID is invalid")
        }
        guard let results = call.parameters["results"] as? [[String: Any]] else {
            return refuse(method, 400, "Bad Request: can't parse inline query results JSON object")
        }
        guard results.count <= 50 else { return refuse(method, 400, "Bad Request: RESULTS_TOO_MUCH") }
        var ids = Set<String>()
        for result in results {
            let resultID = result["id"] as? String ?? ""
            guard (1...64).contains(resultID.utf8.count) else { return refuse(method, 400, "Bad Request: RESULT_ID_INVALID") }
            guard ids.insert(resultID).inserted else { return refuse(method, 400, "Bad Request: RESULT_ID_DUPLICATE") }
            if let problem = inlineResultProblem(result) { return refuse(method, 400, "Bad Request: \(problem)") }
        }
        if let button = call.parameters["button"] {
            let fields = button as? [String: Any] ?? [:]
            let text = fields["text"] as? String ?? ""
            let start = fields["start_parameter"] as? String ?? ""
            let startCharacters = start.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "-") }
            guard !text.isEmpty, (1...64).contains(start.count), startCharacters else {
                return refuse(method, 400, "Bad Request: BUTTON_DATA_INVALID")
            }
        }
        let answer = InlineAnswer(call: call)
        inlineAnswers.append(answer)
        if let (from, text) = inlineQueries[id] {
            let seconds = (call.parameters["cache_time"] as? NSNumber)?.intValue ?? 300
            let personal = call.parameters["is_personal"] as? Bool ?? false
            let key = InlineCacheKey(text: text, asker: personal ? (from["id"] as? Int64) : nil)
            if seconds > 0 { keptInlineAnswers[key] = (answer, elapsed() + .seconds(seconds)) }
        }
        return ok(true)
    }

    /// What Telegram would refuse in one inline result; nil if it takes it.
    private func inlineResultProblem(_ result: [String: Any]) -> String? {
        switch result["type"] as? String {
        case "article":
            guard let title = result["title"] as? String, !title.isEmpty else { return "RESULT_TITLE_EMPTY" }
            guard let content = result["input_message_content"] as? [String: Any], let text = content["message_text"] as? String,
                  !text.isEmpty else { return "MESSAGE_EMPTY" }
            return TelegramHTML.problem(in: text)
        case "photo":
            // An inline result cannot upload: only a photo Telegram already has, by file_id.
            guard result["photo_url"] == nil, let fileID = result["photo_file_id"] as? String else { return "PHOTO_INVALID" }
            guard photoIDs[fileID] != nil else { return "wrong file identifier/HTTP URL specified" }
            return (result["caption"] as? String).flatMap { TelegramHTML.captionProblem(in: $0) }
        default:
            return "RESULT_TYPE_INVALID"
        }
    }

    func refuse(_ method: String, _ code: Int, _ description: String, retryAfter: Int? = nil, migrateTo: Int64? = nil) -> FakeResponse {
        refusals.append(Refusal(method: method, code: code, description: description))
        return error(code, description, retryAfter: retryAfter, migrateTo: migrateTo)
    }

    private func error(_ code: Int, _ description: String, retryAfter: Int? = nil, migrateTo: Int64? = nil) -> FakeResponse {
        var parameters: [String: Any] = [:]
        if let retryAfter { parameters["retry_after"] = retryAfter }
        if let migrateTo { parameters["migrate_to_chat_id"] = migrateTo }
        var body: [String: Any] = ["ok": false, "error_code": code, "description": description]
        if !parameters.isEmpty { body["parameters"] = parameters }
        return .json(object: body, status: code)
    }

    func ok(_ result: Any) -> FakeResponse {
        .json(object: ["ok": true, "result": result])
    }
}
