import Clocks
import Networking
import Testing
import TestSupport
import TestLogging

@Suite(.capturingLogs) struct TokenBucketTests {
    @Test func burstThenDeniesWithTimeUntilRefill() async {
        let clock = TestClock()
        let bucket = TokenBucket(allowing: 3, per: .seconds(3), clock: clock)
        for _ in 0..<3 { #expect(await bucket.tryTake() == .allowed) }
        #expect(await bucket.tryTake() == .denied(retryAfter: .seconds(1)))
        await clock.advance(by: .milliseconds(500))
        #expect(await bucket.tryTake() == .denied(retryAfter: .milliseconds(500)))
        await clock.advance(by: .milliseconds(500))
        #expect(await bucket.tryTake() == .allowed)
    }

    @Test func refillNeverExceedsCapacity() async {
        let clock = TestClock()
        let bucket = TokenBucket(allowing: 2, per: .seconds(1), clock: clock)
        await clock.advance(by: .seconds(60))
        #expect(await bucket.tryTake() == .allowed)
        #expect(await bucket.tryTake() == .allowed)
        #expect(await bucket.tryTake() != .allowed)
    }

    @Test func takeWaitsForTheClock() async throws {
        let clock = TestClock()
        let bucket = TokenBucket(allowing: 1, per: .seconds(2), clock: clock)
        try await bucket.take()
        let second = Task { try await bucket.take() }
        #expect(await clock.waitForSleeper())
        await clock.advance(by: .seconds(1))
        await clock.advance(by: .seconds(1))
        try await second.value
        #expect(await bucket.tryTake() != .allowed)
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
