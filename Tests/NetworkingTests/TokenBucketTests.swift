import Clocks
import Foundation
import Networking
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
