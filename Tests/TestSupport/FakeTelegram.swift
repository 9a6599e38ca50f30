import Foundation

/// A Bot API server on loopback: it holds a queue of updates for `getUpdates` (long-polling
/// until there are some), records every call, answers `sendMessage` like Telegram, and takes
/// injected faults per method.
public actor FakeTelegram {
    /// One call the fake received, with its JSON parameters.
    public struct Call: Sendable {
        public var method: String
        public var body: Data

        public var parameters: [String: Any] {
            (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
        }

        public var chatID: Int64? { (parameters["chat_id"] as? NSNumber)?.int64Value }
        public var text: String? { parameters["text"] as? String }
        public var replyToMessageID: Int64? {
            ((parameters["reply_parameters"] as? [String: Any])?["message_id"] as? NSNumber)?.int64Value
        }
    }

    public enum Fault: Sendable {
        /// A Bot API error answer.
        case error(code: Int, description: String, retryAfter: Int? = nil, migrateTo: Int64? = nil)
        /// Any status and raw body.
        case raw(status: Int, body: String)
        /// Never answers (until the server stops): the client's timeout must fire.
        case hang
    }

    public nonisolated let token: String
    public nonisolated let botUsername: String
    public private(set) var calls: [Call] = []
    /// Messages that were accepted (answered ok), in order.
    public private(set) var delivered: [Call] = []
    public var administrators: [Int64: [Int64]] = [:]
    /// The ids of the messages `sendMessage` created, in order.
    public private(set) var sentMessageIDs: [Int64] = []
    /// Acts like a Telegram that never saw the confirming poll: updates are delivered again.
    public var ignoresConfirmations = false

    private var pendingUpdates: [[String: Any]] = []
    private var nextUpdateID: Int64 = 1
    private var nextMessageID: Int64 = 1000
    private var faults: [(method: String, fault: Fault)] = []
    private var updateWaiters: [CheckedContinuation<Void, Never>] = []
    private var callWaiters: [(method: String, count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    private var server: FakeHTTPServer?
    private var stopped = false
    private let forever = Gate()

    public init(token: String = "123456:TEST-token-abcdef", botUsername: String = "TheBot") {
        self.token = token
        self.botUsername = botUsername
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

    // MARK: Scripting

    /// Queues a text message from `userID` in `chatID`; returns its update id.
    @discardableResult
    public func pushMessage(
        _ text: String, chatID: Int64, chatType: String = "group", userID: Int64 = 7, messageID: Int64? = nil
    ) -> Int64 {
        let id = messageID ?? nextMessage()
        return push(["message": [
            "message_id": id, "date": 1_700_000_000, "text": text,
            "from": ["id": userID, "is_bot": false, "first_name": "User \(userID)", "language_code": "en"],
            "chat": ["id": chatID, "type": chatType, "title": "Test chat"],
        ] as [String: Any]])
    }

    /// Sets the administrators of a chat, for `getChatAdministrators`.
    public func setAdministrators(_ ids: [Int64], of chat: Int64) {
        administrators[chat] = ids
    }

    public func setIgnoresConfirmations(_ value: Bool) {
        ignoresConfirmations = value
    }

    /// Queues a button press on message `messageID` (nil: a message too old to be included).
    @discardableResult
    public func pushCallback(data: String, chatID: Int64, messageID: Int64?, userID: Int64 = 7) -> Int64 {
        var query: [String: Any] = [
            "id": "q\(nextUpdateID)", "data": data, "chat_instance": "ci",
            "from": ["id": userID, "is_bot": false, "first_name": "User \(userID)"],
        ]
        if let messageID {
            query["message"] = ["message_id": messageID, "date": 1_700_000_000, "text": "…", "chat": ["id": chatID, "type": "group"]] as [String: Any]
        }
        return push(["callback_query": query])
    }

    /// Queues a raw update body (the fake adds `update_id`); returns its id.
    @discardableResult
    public func push(_ update: [String: Any]) -> Int64 {
        var update = update
        let id = nextUpdateID
        nextUpdateID += 1
        update["update_id"] = id
        pendingUpdates.append(update)
        for waiter in updateWaiters { waiter.resume() }
        updateWaiters = []
        return id
    }

    /// The next `times` calls of `method` get `fault`.
    public func inject(_ fault: Fault, method: String, times: Int = 1) {
        for _ in 0..<times { faults.append((method, fault)) }
    }

    /// Calls of `method`.
    public func calls(_ method: String) -> [Call] {
        calls.filter { $0.method == method }
    }

    /// Returns once the fake has received `count` calls of `method`.
    public func waitForCalls(_ method: String, count: Int = 1) async {
        if calls(method).count >= count { return }
        await withCheckedContinuation { callWaiters.append((method, count, $0)) }
    }

    // MARK: Serving

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
        let call = Call(method: method, body: request.body)
        calls.append(call)
        let ready = callWaiters.filter { waiter in calls.filter { $0.method == waiter.method }.count >= waiter.count }
        callWaiters.removeAll { waiter in calls.filter { $0.method == waiter.method }.count >= waiter.count }
        for waiter in ready { waiter.continuation.resume() }

        if let index = faults.firstIndex(where: { $0.method == method }) {
            switch faults.remove(at: index).fault {
            case let .error(code, description, retryAfter, migrateTo):
                var parameters: [String: Any] = [:]
                if let retryAfter { parameters["retry_after"] = retryAfter }
                if let migrateTo { parameters["migrate_to_chat_id"] = migrateTo }
                var body: [String: Any] = ["ok": false, "error_code": code, "description": description]
                if !parameters.isEmpty { body["parameters"] = parameters }
                return .json(object: body, status: code)
            case let .raw(status, body):
                return FakeResponse(status: status, body: Data(body.utf8))
            case .hang:
                await forever.wait()
                return .json(#"{"ok":false,"error_code":500,"description":"stopped"}"#, status: 500)
            }
        }
        switch method {
        case "getMe":
            return ok(["id": 42, "is_bot": true, "first_name": "Vinylogue", "username": botUsername, "can_join_groups": true])
        case "getUpdates":
            return ok(await updates(after: (call.parameters["offset"] as? NSNumber)?.int64Value))
        case "sendMessage", "editMessageText":
            delivered.append(call)
            let id = method == "sendMessage" ? nextMessage() : ((call.parameters["message_id"] as? NSNumber)?.int64Value ?? 0)
            if method == "sendMessage" { sentMessageIDs.append(id) }
            return ok([
                "message_id": id, "date": 1_700_000_000, "text": call.text ?? "",
                "chat": ["id": call.chatID ?? 0, "type": "group"],
                "from": ["id": 42, "is_bot": true, "first_name": "Vinylogue"],
            ] as [String: Any])
        case "getChatAdministrators":
            let ids = administrators[call.chatID ?? 0] ?? []
            return ok(ids.map { ["status": "administrator", "user": ["id": $0, "is_bot": false, "first_name": "Admin"]] })
        default:
            return ok(true)
        }
    }

    /// Long-polls: drops confirmed updates, then waits until some are pending.
    private func updates(after offset: Int64?) async -> [[String: Any]] {
        if let offset, !ignoresConfirmations {
            pendingUpdates.removeAll { (($0["update_id"] as? Int64) ?? 0) < offset }
        }
        let fresh = { self.pendingUpdates.filter { self.ignoresConfirmations || (($0["update_id"] as? Int64) ?? 0) >= (offset ?? 0) } }
        while fresh().isEmpty && !stopped {
            await withCheckedContinuation { updateWaiters.append($0) }
        }
        return fresh()
    }

    private func ok(_ result: Any) -> FakeResponse {
        .json(object: ["ok": true, "result": result])
    }
}
