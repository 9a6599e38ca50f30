import Foundation
import Networking

// Running: the scans for messages this process did not enqueue, the hourly prune, and
// waiting for delivery to go idle or stopping it.
extension OutboxDeliverer {
    /// Finds pending messages this process does not hold yet: left by an earlier run, or by
    /// another process. Messages some process stopped sending long ago are settled first.
    public func scan() async {
        _ = await scanOutbox()
    }

    /// Scans, and returns when the first lease of another process on a chat with messages
    /// waiting runs out: then the scan may take up that chat's messages.
    private func scanOutbox() async -> Date? {
        do {
            let now = now()
            let abandoned = try await store.write {
                try $0.settleAbandoned(sendingBefore: now.addingTimeInterval(-120), at: now)
            }
            if abandoned > 0 {
                logger.notice("messages were being sent when their process stopped; they may have arrived, so they are not sent again", metadata: [
                    "count": "\(abandoned)",
                ])
                metrics.increment("vinylogue_outbox_messages_total", [("outcome", "unconfirmed")], by: Int64(abandoned))
            }
            // Among replicas, a message another replica enqueued is its own to send while it
            // lives: taken from it before its first send, the message would leave on a flood
            // window that knows nothing of the chat's last message from that replica.
            let enqueuedBefore = store.servesReplicas ? now.addingTimeInterval(-settings.laneLease.seconds) : nil
            let (messages, heldElsewhereUntil) = try await store.pendingMessages(
                limit: settings.maxWaiting, owner: owner, at: now, enqueuedBefore: enqueuedBefore
            ) { id in
                self.state.withLock { $0.known.contains(id) }
            }
            if let heldElsewhereUntil {
                logger.debug("messages wait while another process sends to their chat", metadata: ["until": "\(heldElsewhereUntil)"])
            }
            accept(messages)
            return heldElsewhereUntil
        } catch {
            // Shutdown cancels a scan: that is no error.
            if !Task.isCancelled { logger.error("could not read the outbox", metadata: ["error": "\(error)"]) }
            return nil
        }
    }

    // MARK: Running

    /// Delivers until cancelled: scans the outbox now and every `scanInterval`, and runs the
    /// pruner now and every hour. The pump runs on its own: `stop` ends it gracefully, and
    /// cancelling this ends it at once, as a crash would.
    public func run() async {
        await withTaskCancellationHandler {
            await scanAndPrune()
        } onCancel: {
            state.withLock { state in
                state.stopping = true
                return state.pump
            }?.cancel()
        }
    }

    private func scanAndPrune() async {
        var lastPrune: Duration?
        let realTime = ElapsedClock.continuous
        while !Task.isCancelled {
            let heldElsewhereUntil = await scanOutbox()
            let elapsed = realTime.elapsed()
            if let pruner, lastPrune.map({ elapsed - $0 >= .seconds(3600) }) ?? true {
                lastPrune = elapsed
                do {
                    try await pruner.prune()
                } catch {
                    if !Task.isCancelled { logger.warning("could not prune the database", metadata: ["error": "\(error)"]) }
                }
            }
            // A chat another process holds is looked at again as soon as its lease runs out.
            let untilFree = heldElsewhereUntil.map { Duration.seconds(max(0, $0.timeIntervalSince(now()))) + .milliseconds(50) }
            await rescan.wait(for: min(settings.scanInterval, untilFree ?? settings.scanInterval), on: realTime)
        }
    }

    /// Returns once nothing is left to send.
    public func idle() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                guard state.pump == nil else {
                    state.idleWaiters.append(continuation)
                    return false
                }
                return true
            }
            if done { continuation.resume() }
        }
    }

    /// Returns true once nothing is left to send; or, when that takes longer than `limit`,
    /// stops delivery (see `stop`) and returns false: what is left stays in the outbox.
    public func idle(stoppingAfter limit: Duration) async -> Bool {
        await withTaskGroup(of: Bool?.self) { group in
            group.addTask { await self.idle(); return true }
            group.addTask { [clock] in
                // Cancelled: idle came first.
                guard (try? await clock.sleep(limit)) != nil else { return nil }
                await self.stop()
                return false
            }
            var idle = true
            while let outcome = await group.next() {
                // The first to end decides; a stop also ends the wait for idle.
                if outcome == false { idle = false }
                group.cancelAll()
            }
            return idle
        }
    }

    /// Stops delivery: nothing new starts (messages waiting stay pending for the next start),
    /// and messages being sent get `shutdownGrace` to finish; then they are cut off. One whose
    /// bytes may have left counts as possibly sent; one its transport still held back (waiting
    /// for a connection, or not handed over yet) waits for the next start.
    public func stop() async {
        let pump = state.withLock { state in
            state.stopping = true
            return state.pump
        }
        wake.notify()
        guard let pump else { return }
        let graceOver = Task { [clock, settings] in
            guard (try? await clock.sleep(settings.shutdownGrace)) != nil else { return }
            pump.cancel()
        }
        await pump.value
        graceOver.cancel()
    }
}
