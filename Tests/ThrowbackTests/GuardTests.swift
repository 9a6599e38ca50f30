import Clocks
import Foundation
import LastFM
import Networking
import Synchronization
import Telegram
import Testing
import TestSupport
import Throwback
import TestLogging
import WeeklyCharts

private func invocation(user: Int64 = 7, chat: Int64 = -1, target: Int64? = nil, lastFMUser: String? = nil) -> CommandInvocation {
    var invocation = CommandInvocation(chatID: chat, isPrivateChat: chat > 0, userID: user)
    invocation.targetChatID = target ?? chat
    invocation.lastFMUser = lastFMUser
    return invocation
}

@Suite(.capturingLogs) struct RateLimitGuardTests {
    @Test func oneNoticePerWindowThenSilenceAndOthersUnaffected() async {
        let clock = TestClock()
        let limit = RateLimitGuard(limits: .init(user: .init(burst: 3, perMinute: 6), chat: .init(burst: 100, perMinute: 100)), clock: clock)
        for _ in 0..<3 { #expect(await limit.check(invocation()) == .allow(invocation())) }
        #expect(await limit.check(invocation()) == .deny("Slow down, you sent too many commands: try again in 10s."))
        #expect(await limit.check(invocation()) == .ignore)
        #expect(await limit.check(invocation(user: 8)) == .allow(invocation(user: 8)))
        await clock.advance(by: .seconds(9))
        #expect(await limit.check(invocation()) == .ignore)
        await clock.advance(by: .seconds(1))
        #expect(await limit.check(invocation()) == .allow(invocation()))
        #expect(await limit.check(invocation()) == .deny("Slow down, you sent too many commands: try again in 10s."))
    }

    @Test func aPersonExploringAtTheDefaultsIsNeverStopped() async {
        let clock = TestClock()
        let limit = RateLimitGuard(clock: clock)
        // A burst of ten, then a press every two seconds for ten minutes.
        for _ in 0..<10 { #expect(await limit.check(invocation()) == .allow(invocation())) }
        for _ in 0..<300 {
            await clock.advance(by: .seconds(2))
            #expect(await limit.check(invocation()) == .allow(invocation()))
        }
    }

    @Test func idleBucketsAreForgottenSoMemoryStaysBounded() async {
        let clock = TestClock()
        let limit = RateLimitGuard(limits: .init(user: .init(burst: 1, perMinute: 1), chat: .init(burst: 1_000_000, perMinute: 1_000_000)), clock: clock, capacity: 10)
        for user in 0..<1000 { _ = await limit.check(invocation(user: Int64(user))) }
        // User 999 is remembered as having spent their token; user 0 was forgotten, like a new user.
        #expect(await limit.check(invocation(user: 999)) != .allow(invocation(user: 999)))
        #expect(await limit.check(invocation(user: 0)) == .allow(invocation(user: 0)))
    }

    @Test func anAnonymousAdminIsLimitedAsTheirGroup() async {
        let limit = RateLimitGuard(limits: .init(user: .init(burst: 1, perMinute: 1), chat: .init(burst: 100, perMinute: 100)), clock: TestClock())
        var first = CommandInvocation(chatID: -1, isPrivateChat: false, userID: 1_087_968_824, senderChatID: -1)
        var second = CommandInvocation(chatID: -2, isPrivateChat: false, userID: 1_087_968_824, senderChatID: -2)
        #expect(await limit.check(first) == .allow(first))
        #expect(await limit.check(second) == .allow(second))
        first.arguments = []
        second.arguments = []
        #expect(await limit.check(first) != .allow(first))
    }

    @Test func aBusyChatIsLimitedAsAWhole() async {
        let clock = TestClock()
        let limit = RateLimitGuard(limits: .init(user: .init(burst: 100, perMinute: 100), chat: .init(burst: 2, perMinute: 2)), clock: clock)
        #expect(await limit.check(invocation(user: 1)) != .ignore)
        #expect(await limit.check(invocation(user: 2)) != .ignore)
        guard case .deny(let reason) = await limit.check(invocation(user: 3)) else { Issue.record("not denied"); return }
        #expect(reason.contains("this chat"))
        #expect(await limit.check(invocation(user: 4, chat: -2)) == .allow(invocation(user: 4, chat: -2)))
    }
}

@Suite(.capturingLogs) struct CircuitBreakerTests {
    @Test func opensAfterRepeatedFailuresAndHalfOpensAfterTheCooldown() async {
        let clock = TestClock()
        let breaker = CircuitBreaker(failureThreshold: 3, cooldown: .seconds(60), clock: clock)
        let healthy = LastFMHealthGuard(breaker: breaker)
        for _ in 0..<2 { breaker.recordFailure() }
        #expect(breaker.state == .closed)
        breaker.recordFailure()
        #expect(breaker.state == .open)
        #expect(await healthy.check(invocation()) == .deny("Last.fm is having trouble, try again in a minute."))
        await clock.advance(by: .seconds(60))
        #expect(breaker.state == .halfOpen)
        #expect(await healthy.check(invocation()) == .allow(invocation()))
        // Half-open lets exactly one trial through.
        #expect(breaker.permit())
        #expect(!breaker.permit())
        breaker.recordFailure()
        #expect(breaker.state == .open)
        await clock.advance(by: .seconds(60))
        breaker.recordSuccess()
        #expect(breaker.state == .closed)
    }

    @Test func theAdaptorFailsFastWhileOpenAndCountsOnlyServiceFailures() async throws {
        let clock = TestClock()
        let breaker = CircuitBreaker(failureThreshold: 2, cooldown: .seconds(60), clock: clock)
        let transport = ScriptedTransport([
            .respond(status: 200, body: #"{"error":6,"message":"User not found"}"#),
            .respond(status: 503, body: "down"), .respond(status: 503, body: "down"),
        ], fallback: .respond(status: 200, body: #"{"weeklychartlist":{"chart":[]}}"#))
        let lastFM = HTTPLastFMClient(transport: transport, apiKey: "k").circuitBroken(by: breaker, whenOpen: ListeningError.circuitOpen("Last.fm"))
        for _ in 0..<3 { _ = try? await lastFM.weeklyChartList(user: "rj") }
        #expect(breaker.state == .open)
        await #expect(throws: ListeningError.circuitOpen("Last.fm")) { try await lastFM.weeklyChartList(user: "rj") }
        #expect(transport.requests.count == 3)
        await clock.advance(by: .seconds(60))
        #expect(try await lastFM.weeklyChartList(user: "rj").isEmpty)
        #expect(breaker.state == .closed)
    }
}

@Suite(.capturingLogs) struct HalfOpenTrialTests {
    @Test func concurrentCallsInTheHalfOpenStateSendOneTrial() async throws {
        let clock = TestClock()
        let breaker = CircuitBreaker(failureThreshold: 1, cooldown: .seconds(60), clock: clock)
        breaker.recordFailure()
        await clock.advance(by: .seconds(60))
        let gate = Gate()
        let transport = GatedTransport(gate: gate, body: #"{"weeklychartlist":{"chart":[]}}"#)
        let lastFM = HTTPLastFMClient(transport: transport, apiKey: "k").circuitBroken(by: breaker, whenOpen: ListeningError.circuitOpen("Last.fm"))
        let trial = Task { try await lastFM.weeklyChartList(user: "rj") }
        await transport.waitForRequest()
        for _ in 0..<5 {
            await #expect(throws: ListeningError.circuitOpen("Last.fm")) { try await lastFM.weeklyChartList(user: "rj") }
        }
        await gate.open()
        #expect(try await trial.value.isEmpty)
        #expect(transport.count == 1)
        #expect(breaker.state == .closed)
    }

    @Test func aCancelledTrialFreesTheTrial() async throws {
        let clock = TestClock()
        let breaker = CircuitBreaker(failureThreshold: 1, cooldown: .seconds(60), clock: clock)
        breaker.recordFailure()
        await clock.advance(by: .seconds(60))
        #expect(breaker.permit())
        breaker.recordAbandoned()
        #expect(breaker.permit())
    }
}

/// Holds every request until its gate opens, then answers `body`.
private final class GatedTransport: HTTPTransport {
    private let gate: Gate
    private let body: String
    private let requests = Synchronization.Mutex(0)
    private let arrived = Gate()

    init(gate: Gate, body: String) {
        self.gate = gate
        self.body = body
    }

    var count: Int { requests.withLock { $0 } }

    func waitForRequest() async { await arrived.wait() }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        requests.withLock { $0 += 1 }
        await arrived.open()
        await gate.wait()
        return HTTPResponse(status: 200, body: Data(body.utf8))
    }
}

@Suite(.capturingLogs) struct ValidListenerGuardTests {
    @Test func syntaxIsCheckedWithoutAsking() async {
        let transport = ScriptedTransport([])
        let valid = ValidListenerGuard(lastFM: HTTPLastFMClient(transport: transport, apiKey: "k"), clock: TestClock())
        guard case .deny(let reason) = await valid.check(invocation(lastFMUser: "1nvalid!")) else { Issue.record("allowed"); return }
        #expect(reason.contains("1nvalid!"))
        #expect(transport.requests.isEmpty)
    }

    @Test func existingUsersContinueInCanonicalSpellingAndAreCached() async {
        let transport = ScriptedTransport([.respond(status: 200, body: #"{"user":{"name":"RJ"}}"#)])
        let valid = ValidListenerGuard(lastFM: HTTPLastFMClient(transport: transport, apiKey: "k"), clock: TestClock())
        #expect(await valid.check(invocation(lastFMUser: "rj")) == .allow(invocation(lastFMUser: "RJ")))
        #expect(await valid.check(invocation(lastFMUser: "Rj")) == .allow(invocation(lastFMUser: "RJ")))
        #expect(transport.requests.count == 1)
    }

    @Test func notFoundIsCachedForAShortTime() async {
        let clock = TestClock()
        let transport = ScriptedTransport([], fallback: .respond(status: 200, body: #"{"error":6,"message":"User not found"}"#))
        let valid = ValidListenerGuard(
            lastFM: HTTPLastFMClient(transport: transport, apiKey: "k"), clock: clock, notFoundLifetime: .seconds(300)
        )
        #expect(await valid.check(invocation(lastFMUser: "ghost")) == .deny("No Last.fm user is called “ghost”."))
        #expect(await valid.check(invocation(lastFMUser: "ghost")) == .deny("No Last.fm user is called “ghost”."))
        #expect(transport.requests.count == 1)
        await clock.advance(by: .seconds(300))
        _ = await valid.check(invocation(lastFMUser: "ghost"))
        #expect(transport.requests.count == 2)
    }
}

@Suite(.capturingLogs) struct AdminGuardTests {
    private let administrators = #"{"ok":true,"result":[{"status":"creator","user":{"id":100,"is_bot":false,"first_name":"A"}}]}"#

    @Test func botAdminsAndOwnPrivateChatsNeedNoLookup() async {
        let transport = ScriptedTransport([])
        let admin = AdminGuard(globalAdmins: [1], telegram: HTTPTelegramClient(transport: transport, token: "t:oken"), clock: TestClock())
        #expect(await admin.check(invocation(user: 1, chat: -5)) == .allow(invocation(user: 1, chat: -5)))
        #expect(await admin.check(invocation(user: 9, chat: 9)) == .allow(invocation(user: 9, chat: 9)))
        #expect(transport.requests.isEmpty)
    }

    @Test func groupAdministratorsAreAskedForAndCached() async {
        let clock = TestClock()
        let transport = ScriptedTransport([], fallback: .respond(status: 200, body: administrators))
        let admin = AdminGuard(globalAdmins: [], telegram: HTTPTelegramClient(transport: transport, token: "t:oken"), clock: clock, cacheLifetime: .seconds(300))
        #expect(await admin.check(invocation(user: 100, chat: -5)) == .allow(invocation(user: 100, chat: -5)))
        #expect(await admin.check(invocation(user: 7, chat: -5)) == .deny("Only admins of this chat can do that."))
        #expect(transport.requests.count == 1)
        await clock.advance(by: .seconds(300))
        _ = await admin.check(invocation(user: 7, chat: -5))
        #expect(transport.requests.count == 2)
    }

    @Test func managingAnotherChatChecksThatChat() async {
        let transport = ScriptedTransport([], fallback: .respond(status: 200, body: administrators))
        let admin = AdminGuard(globalAdmins: [], telegram: HTTPTelegramClient(transport: transport, token: "t:oken"), clock: TestClock())
        #expect(await admin.check(invocation(user: 100, chat: 100, target: -1_001_234)) != .deny("Only admins of this chat can do that."))
        let body = String(decoding: transport.requests.first?.body ?? Data(), as: UTF8.self)
        #expect(body.contains("-1001234"))
        #expect(await admin.check(invocation(user: 7, chat: 7, target: -1_001_234)) == .deny("Only admins of this chat can do that."))
    }

    @Test func anAnonymousAdminManagesOnlyTheirOwnGroup() async {
        let transport = ScriptedTransport([])
        let admin = AdminGuard(globalAdmins: [], telegram: HTTPTelegramClient(transport: transport, token: "t:oken"), clock: TestClock())
        var own = CommandInvocation(chatID: -5, isPrivateChat: false, userID: 1_087_968_824, senderChatID: -5)
        #expect(await admin.check(own) == .allow(own))
        own.targetChatID = -6
        #expect(await admin.check(own) == .deny("Only admins of this chat can do that."))
        #expect(transport.requests.isEmpty)
    }
}

@Suite(.capturingLogs) struct ButtonDataTests {
    @Test(arguments: ["", "garbage", "tb|alice", "tb|x|alice", "tb|0|alice", "tb|51|alice", "xx|3|alice", "tb|3|", "tb|3|#abc", "tb|003|alice"])
    func forgedDataIsRejected(data: String) {
        #expect(ButtonData.parse(data) == nil)
    }

    @Test(arguments: ["RJ", "a|b|c", "名前", "#hash", "x y", String(repeating: "n", count: 200), "e\u{301}<>&", "\u{301}abc", "\u{20DD}", "\u{FE0F}5*0"])
    func everyNameRoundTripsWithinSixtyFourBytes(name: String) {
        for years in [1, 9, 50] {
            let data = ButtonData.named(name, years) ?? ButtonData.stored(ButtonData.key(for: name), years)
            #expect(data.utf8.count <= 64)
            switch ButtonData.parse(data) {
            case .named(let user, let parsed)?: #expect(user == name && parsed == years)
            case .stored(let key, let parsed)?: #expect(key == ButtonData.key(for: name) && parsed == years)
            case nil: Issue.record("\(data) does not parse")
            }
        }
    }

    @Test func aLongNameIsStoredAndReadBack() async throws {
        let store = try BotStore.inMemory()
        let navigation = YearNavigation(store: store)
        let name = String(repeating: "ü", count: 40) + "|x"
        let summary = ChartSummary(
            user: name, range: WeeklyChartRange(fromUnix: 0, toUnix: 604_800), yearsAgo: 2, albums: [], canGoBack: true, canGoForward: true
        )
        let buttons = YearNavigation.buttons(for: .throwback(.chart(summary)))
        try await store.write { try $0.saveButtonNames(buttons, at: Date()) }
        let keyboard = try #require(buttons.keyboard)
        let data = keyboard.rows[0].map(\.callbackData)
        #expect(data.allSatisfy { $0.utf8.count <= 64 })
        #expect(await navigation.target(from: data[0]) == .init(user: name, yearsAgo: 3))
        #expect(await navigation.target(from: data[1]) == .init(user: name, yearsAgo: 1))
        #expect(await navigation.target(from: ButtonData.stored(ButtonData.key(for: "never stored"), 3)) == nil)
    }
}
