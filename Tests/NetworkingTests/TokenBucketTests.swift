import Clocks
import Foundation
import Networking
import Synchronization
import Testing
import TestSupport
import TestLogging

@Suite(.capturingLogs) struct TokenBucketTests {
    @Test func burstThenDeniesWithTimeUntilRefill() {
        var bucket = TokenBucketState(capacity: 3, refill: 3, per: .seconds(3), now: .zero)
        for _ in 0..<3 { #expect(bucket.tryTake(now: .zero) == .allowed) }
        #expect(bucket.tryTake(now: .zero) == .denied(retryAfter: .seconds(1)))
        #expect(bucket.tryTake(now: .milliseconds(500)) == .denied(retryAfter: .milliseconds(500)))
        #expect(bucket.tryTake(now: .seconds(1)) == .allowed)
    }

    @Test func refillNeverExceedsCapacity() {
        var bucket = TokenBucketState(capacity: 2, refill: 2, per: .seconds(1), now: .zero)
        #expect(bucket.tryTake(now: .seconds(60)) == .allowed)
        #expect(bucket.tryTake(now: .seconds(60)) == .allowed)
        #expect(bucket.tryTake(now: .seconds(60)) != .allowed)
    }
}

@Suite(.capturingLogs) struct RateLimitedTests {
    /// Callers are served in the order they ask, each at the first moment within the limit.
    @Test func waitersAreGivenTheirSlotsFirstComeFirstServed() async throws {
        let clock = TestClock()
        let limited = RateLimited(limit: 2, per: .seconds(1), clock: ElapsedClock(clock))
        @Sendable func next() async throws {
            _ = try await limited.call(HTTPRequest(url: URL(string: "http://127.0.0.1/")!)) { HTTPResponse(status: 200, body: Data()) }
        }
        try await next()
        try await next()
        let third = Task { try await next() }
        #expect(await clock.waitForSleeper())
        let fourth = Task { try await next() }
        await clock.advance(by: .seconds(1))
        try await third.value
        try await fourth.value
        let fifth = Task { try await next() }
        #expect(await clock.waitForSleeper())
        await clock.advance(by: .seconds(1))
        try await fifth.value
    }

    /// Background calls (prefetching) keep half the budget free: an interactive call that
    /// comes while they wait goes at once, and they take what is left after it.
    @Test func anInteractiveCallNeverWaitsBehindBackgroundCalls() async throws {
        let clock = TestClock()
        let limited = RateLimited(limit: 4, per: .seconds(1), clock: ElapsedClock(clock))
        let order = CallOrder()
        @Sendable func next(_ name: String) async throws {
            _ = try await limited.call(HTTPRequest(url: URL(string: "http://127.0.0.1/")!)) {
                order.names.withLock { $0.append(name) }
                return HTTPResponse(status: 200, body: Data())
            }
        }
        @Sendable func inBackground(_ name: String) async throws {
            try await RequestPriority.$current.withValue(.background) { try await next(name) }
        }
        // Two of four go at once; the others wait while half the budget must stay free.
        try await inBackground("background 1")
        try await inBackground("background 2")
        let waiting = [Task { try await inBackground("background 3") }, Task { try await inBackground("background 4") }]
        #expect(await clock.waitForSleeper())
        try await next("interactive 1")
        try await next("interactive 2")
        #expect(order.names.withLock { Array($0.suffix(2)) } == ["interactive 1", "interactive 2"])
        await clock.advance(by: .seconds(1))
        for task in waiting { try await task.value }
        #expect(order.names.withLock { $0.count } == 6)
    }
}

/// The order in which calls reached the service.
private final class CallOrder: Sendable {
    let names = Mutex<[String]>([])
}

@Suite(.capturingLogs) struct RetryPolicyTests {
    @Test func delaysGrowExponentiallyAndAreCapped() {
        let policy = RetryPolicy(maxAttempts: 10, initialDelay: .seconds(1), maxDelay: .seconds(5), multiplier: 2, jitter: 0.5)
        #expect(policy.delay(beforeRetry: 1, random: 0) == .seconds(1))
        #expect(policy.delay(beforeRetry: 2, random: 0) == .seconds(2))
        #expect(policy.delay(beforeRetry: 3, random: 0) == .seconds(4))
        #expect(policy.delay(beforeRetry: 4, random: 0) == .seconds(5))
        #expect(policy.delay(beforeRetry: 9, random: 0) == .seconds(5))
    }

    @Test func jitterShortensTheDelayWithinItsFraction() {
        let policy = RetryPolicy(initialDelay: .seconds(2), jitter: 0.5)
        #expect(policy.delay(beforeRetry: 1, random: 1) == .seconds(1))
        #expect(policy.delay(beforeRetry: 1, random: 0.5) == .milliseconds(1500))
    }
}

@Suite(.capturingLogs) struct SecretRedactorTests {
    @Test func redactsEveryOccurrenceOfEverySecret() {
        let redactor = SecretRedactor(secrets: ["123:ABC-token", "lfmkey42"])
        let text = redactor.redact("GET /bot123:ABC-token/getMe?k=lfmkey42 then /bot123:ABC-token/x")
        #expect(!text.contains("123:ABC-token"))
        #expect(!text.contains("lfmkey42"))
        #expect(text == "GET /bot<redacted>/getMe?k=<redacted> then /bot<redacted>/x")
    }
}
