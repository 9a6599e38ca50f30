import Testing
@testable import Telegram

/// Replicas share the bot's overall flood limit: each sends its part, less a tenth in hand.
@Suite struct FloodShareTests {
    /// How many messages to different chats go in the same instant before the next must wait.
    private func burst(_ limiter: FloodLimiter) -> Int {
        var sent = 0
        while limiter.earliestOverall(now: .zero) == .zero, sent < 100 {
            limiter.commit(in: Int64(sent + 1), now: .zero)
            sent += 1
        }
        return sent
    }

    @Test func aLoneBotSendsThirtyASecondAndThreeReplicasNineEach() {
        #expect(burst(FloodLimiter()) == 30)
        let shared = FloodLimiter()
        shared.shareOverall(among: 3)
        #expect(burst(shared) == 9)
        let alone = FloodLimiter()
        alone.shareOverall(among: 1)
        #expect(burst(alone) == 30)
    }

    @Test func aShareThatGrowsKeepsWhatWasSentThisSecond() {
        let limiter = FloodLimiter()
        limiter.shareOverall(among: 3)
        #expect(burst(limiter) == 9)
        // Two replicas left: 13 each, of which 9 went already.
        limiter.shareOverall(among: 2)
        #expect(burst(limiter) == 4)
    }
}
