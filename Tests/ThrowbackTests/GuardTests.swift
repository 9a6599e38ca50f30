import Clocks
import Foundation
import LastFM
import Networking
import Telegram
import Testing
import TestSupport
import Throwback

private func invocation(user: Int64 = 7, chat: Int64 = -1, target: Int64? = nil, lastFMUser: String? = nil) -> CommandInvocation {
    var invocation = CommandInvocation(chatID: chat, isPrivateChat: chat > 0, userID: user)
    invocation.targetChatID = target ?? chat
    invocation.lastFMUser = lastFMUser
    return invocation
}

@Suite struct RateLimitGuardTests {
    @Test func oneNoticePerWindowThenSilenceAndOthersUnaffected() async {
        let clock = TestClock()
        let limit = RateLimitGuard(limits: .init(perUser: 3, perUserWindow: .seconds(30), perChat: 100), clock: clock)
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

    @Test func aBusyChatIsLimitedAsAWhole() async {
        let clock = TestClock()
        let limit = RateLimitGuard(limits: .init(perUser: 100, perChat: 2, perChatWindow: .seconds(60)), clock: clock)
        #expect(await limit.check(invocation(user: 1)) != .ignore)
        #expect(await limit.check(invocation(user: 2)) != .ignore)
        guard case .deny(let reason) = await limit.check(invocation(user: 3)) else { Issue.record("not denied"); return }
        #expect(reason.contains("this chat"))
        #expect(await limit.check(invocation(user: 4, chat: -2)) == .allow(invocation(user: 4, chat: -2)))
    }
}

@Suite struct CircuitBreakerTests {
    @Test func opensAfterRepeatedFailuresAndHalfOpensAfterTheCooldown() async {
        let clock = TestClock()
        let breaker = CircuitBreaker(failureThreshold: 3, cooldown: .seconds(60), clock: clock)
        let healthy = LastFMHealthGuard(breaker: breaker)
        for _ in 0..<2 { await breaker.recordFailure() }
        #expect(await breaker.state == .closed)
        await breaker.recordFailure()
        #expect(await breaker.state == .open)
        #expect(await healthy.check(invocation()) == .deny("Last.fm is having trouble, try again in a minute."))
        await clock.advance(by: .seconds(60))
        #expect(await breaker.state == .halfOpen)
        #expect(await healthy.check(invocation()) == .allow(invocation()))
        await breaker.recordFailure()
        #expect(await breaker.state == .open)
        await clock.advance(by: .seconds(60))
        await breaker.recordSuccess()
        #expect(await breaker.state == .closed)
    }

    @Test func theAdaptorFailsFastWhileOpenAndCountsOnlyServiceFailures() async throws {
        let clock = TestClock()
        let breaker = CircuitBreaker(failureThreshold: 2, cooldown: .seconds(60), clock: clock)
        let transport = ScriptedTransport([
            .respond(status: 200, body: #"{"error":6,"message":"User not found"}"#),
            .respond(status: 503, body: "down"), .respond(status: 503, body: "down"),
        ], fallback: .respond(status: 200, body: #"{"weeklychartlist":{"chart":[]}}"#))
        let lastFM = HTTPLastFMClient(transport: transport, apiKey: "k").circuitBroken(by: breaker)
        for _ in 0..<3 { _ = try? await lastFM.weeklyChartList(user: "rj") }
        #expect(await breaker.state == .open)
        await #expect(throws: LastFMError.temporarilyUnavailable("circuit open")) { try await lastFM.weeklyChartList(user: "rj") }
        #expect(transport.requests.count == 3)
        await clock.advance(by: .seconds(60))
        #expect(try await lastFM.weeklyChartList(user: "rj").isEmpty)
        #expect(await breaker.state == .closed)
    }
}

@Suite struct ValidLastFMUserGuardTests {
    @Test func syntaxIsCheckedWithoutAsking() async {
        let transport = ScriptedTransport([])
        let valid = ValidLastFMUserGuard(lastFM: HTTPLastFMClient(transport: transport, apiKey: "k"), clock: TestClock())
        guard case .deny(let reason) = await valid.check(invocation(lastFMUser: "1nvalid!")) else { Issue.record("allowed"); return }
        #expect(reason.contains("1nvalid!"))
        #expect(transport.requests.isEmpty)
    }

    @Test func existingUsersContinueInCanonicalSpellingAndAreCached() async {
        let transport = ScriptedTransport([.respond(status: 200, body: #"{"user":{"name":"RJ"}}"#)])
        let valid = ValidLastFMUserGuard(lastFM: HTTPLastFMClient(transport: transport, apiKey: "k"), clock: TestClock())
        #expect(await valid.check(invocation(lastFMUser: "rj")) == .allow(invocation(lastFMUser: "RJ")))
        #expect(await valid.check(invocation(lastFMUser: "Rj")) == .allow(invocation(lastFMUser: "RJ")))
        #expect(transport.requests.count == 1)
    }

    @Test func notFoundIsCachedForAShortTime() async {
        let clock = TestClock()
        let transport = ScriptedTransport([], fallback: .respond(status: 200, body: #"{"error":6,"message":"User not found"}"#))
        let valid = ValidLastFMUserGuard(
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

@Suite struct AdminGuardTests {
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
}

@Suite struct YearNavigationTests {
    @Test(arguments: [nil, "", "garbage", "tb|alice", "tb|alice|x", "tb|alice|0", "tb|alice|51", "tb|<b>|3", "xx|alice|3", "tb|alice|3|4"])
    func forgedDataIsRejected(data: String?) {
        #expect(YearNavigation.target(from: data) == nil)
    }

    @Test func validDataRoundTrips() {
        #expect(YearNavigation.target(from: YearNavigation.data(user: "RJ", yearsAgo: 4)) == .init(user: "RJ", yearsAgo: 4))
    }
}
