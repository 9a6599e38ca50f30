import CMalloc
import Foundation
import HeapModule

// The pump: which lanes' first messages go now, under the flood limits reserved per chat
// and overall.
extension OutboxDeliverer {
    private enum Next {
        /// The lanes' first messages whose moment has come, their slots taken.
        case send([OutboxMessage])
        /// Nothing may go before this moment (nil: before something changes).
        case wait(until: Duration?)
        /// The overall limit holds every lane until this moment: no news can change that.
        case pause(until: Duration)
        case finished
    }

    /// Sends the lanes' first messages as their chats' slots come, until nothing is left.
    func pump() async {
        let keeper = Task { await keepLeases() }
        defer { keeper.cancel() }
        var sent = 0
        // Discarding: a finished send leaves nothing behind to be collected.
        await withDiscardingTaskGroup { sends in
            while !Task.isCancelled {
                switch next() {
                case .send(let batch):
                    // Marked as sending together, in one write, right before they go.
                    let claims = await claim(batch)
                    limiter.departed(count: batch.count, now: clock.elapsed())
                    for (message, claim) in claims {
                        switch claim {
                        case .claimed:
                            sent += 1
                            sends.addTask { await self.send(message) }
                        case .gone: complete(message, .done)
                        case .laneElsewhere: leave(message.chatID)
                        }
                    }
                case .wait(let until):
                    // What goes next waits a while: record the sends that went meanwhile.
                    if until.map({ $0 - clock.elapsed() > .seconds(1) }) ?? true { await recordSends() }
                    if let until {
                        await wake.wait(for: until - clock.elapsed(), on: clock)
                    } else {
                        await wake.wait()
                    }
                case .pause(let until):
                    try? await clock.sleep(until - clock.elapsed())
                case .finished:
                    return
                }
            }
        }
        if Task.isCancelled {
            // Cut off (shutdown after its grace, or a crash as far as delivery goes): what
            // waited stays pending for the next start.
            state.withLock { Self.forgetLanes(&$0) }
        }
        // The sends that went, and the lanes given up.
        await recordSends()
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            // A new pump may have started since this one finished: its waiters are its own.
            guard state.pump == nil else { return [] }
            defer { (state.idleWaiters, state.roomWaiters) = ([], []) }
            return state.idleWaiters + state.roomWaiters
        }
        for waiter in waiters { waiter.resume() }
        // After a burst, the heap it grew is handed back to the system rather than kept
        // until the next one; after a lone reply, the walk through the heap would cost more
        // than the reply.
        if sent >= Self.burstSize { cmalloc_release_free_memory() }
    }

    /// How many messages one run of the pump sends before its end counts as a burst's.
    static let burstSize = 64

    /// The messages to send now, under the flood limits.
    private func next() -> Next {
        let now = clock.elapsed()
        return state.withLock { state in
            if state.stopping {
                guard state.sending == 0 else { return .wait(until: nil) }
                // What waited stays pending for the next start.
                Self.forgetLanes(&state)
                return .finished
            }
            while let first = state.held.min, first.until <= now {
                state.held.removeMin()
                state.ready.append(first.chat)
            }
            var batch: [OutboxMessage] = []
            while let chat = state.ready.first {
                guard let lane = state.lanes[chat], !lane.sending, let message = lane.queue.first else {
                    state.ready.removeFirst()
                    continue
                }
                let chatSlot = limiter.earliest(in: chat, now: now)
                if chatSlot > now {
                    state.ready.removeFirst()
                    state.held.insert(Held(until: chatSlot, chat: chat))
                    continue
                }
                if limiter.earliestOverall(now: now) > now {
                    guard batch.isEmpty else { return .send(batch) }
                    // A flood goes out in groups, each one wake-up and one write.
                    return .pause(until: limiter.earliestOverall(now: now, count: min(state.ready.count, settings.sendGroup)))
                }
                state.ready.removeFirst()
                limiter.commit(in: chat, now: now)
                state.lanes[chat]?.sending = true
                state.sending += 1
                batch.append(message)
            }
            if !batch.isEmpty { return .send(batch) }
            if state.lanes.isEmpty, state.sending == 0 {
                // Done: the next `accept` starts a new pump.
                state.pump = nil
                return .finished
            }
            return .wait(until: state.held.min?.until)
        }
    }
}
