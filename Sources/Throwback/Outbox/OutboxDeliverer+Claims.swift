import Foundation
import Networking

// Claims: messages marked as sending and their chats' leases taken in one write, at the
// moment they go; and the leases renewed while their lanes send.
extension OutboxDeliverer {
    /// What `claim` made of a message.
    enum Claim {
        /// Marked as sending: this process sends it now.
        case claimed
        /// Not this process's to send: another process took it, or it expired and is dropped.
        case gone
        /// Another process holds the chat's lane: it sends the chat's messages.
        case laneElsewhere
    }

    /// Marks messages as sending, in one write that also records the sends that went before,
    /// gives up the lanes that emptied, and takes (or renews) the leases of their chats where
    /// this process does not hold one far from its end; at the moment they go. A message past
    /// its lifetime is dropped instead. One the write could not mark waits for another try.
    func claim(_ batch: [OutboxMessage]) async -> [(OutboxMessage, Claim)] {
        let now = now()
        let expired = Set(batch.filter { now >= $0.expiresAt }.map(\.id))
        let unrecorded = takeUnrecorded()
        let lease = settings.laneLease
        let (released, leasing) = state.withLock { state in
            defer { state.unreleased = [] }
            // A lane that holds its lease for a while yet sends without a word to the database about it.
            let leasing = Set(batch.map(\.chatID).filter { chat in
                state.lanes[chat]?.leaseUntil.map { .seconds($0.timeIntervalSince(now)) < lease / 2 } ?? true
            })
            return (state.unreleased, leasing)
        }
        let until = now.addingTimeInterval(lease.seconds)
        let replicas = store.servesReplicas
        do {
            let (claims, held) = try await store.write { [owner] transaction in
                try transaction.recordSent(unrecorded, at: now)
                // Given up first: a chat whose lane emptied and filled again is taken anew.
                try transaction.releaseLanes(released, in: .outbox, owner: owner)
                let held = try transaction.takeLanes(leasing, in: .outbox, owner: owner, until: until, at: now)
                // Among replicas, a chat taken over from one that died may have older messages
                // waiting that this process does not know of: those go first, after a rescan.
                let behind = replicas ? try transaction.chatsWithOlderPending(than: batch.filter { !expired.contains($0.id) }) : []
                // Held now, or for a while yet without a word to the database.
                let holds = { (chat: Int64) in (held.contains(chat) || !leasing.contains(chat)) && !behind.contains(chat) }
                for message in batch where expired.contains(message.id) {
                    try transaction.settle(message, as: .dropped, note: "expired unsent", ifPending: true, at: now)
                }
                let claimed = try transaction.claimForSending(
                    batch.filter { !expired.contains($0.id) && holds($0.chatID) }.map(\.id), owner: owner, at: now
                )
                let claims = batch.map { message -> Claim in
                    if expired.contains(message.id) { return .gone }
                    guard holds(message.chatID) else { return .laneElsewhere }
                    return claimed.contains(message.id) ? .claimed : .gone
                }
                return (claims, held)
            }
            state.withLock { state in
                for chat in held { state.lanes[chat]?.leaseUntil = until }
            }
            for message in batch where expired.contains(message.id) {
                metrics.increment("vinylogue_outbox_messages_total", [("outcome", OutboxMessage.State.dropped.rawValue)])
                logger.notice("a message waited too long and is dropped unsent", metadata: [
                    "chat": "\(message.chatID)", "message": "\(message.id)", "kind": "\(message.kind.rawValue)",
                ])
            }
            return Array(zip(batch, claims))
        } catch {
            state.withLock { state in
                state.unrecorded.insert(contentsOf: unrecorded, at: 0)
                state.unreleased.formUnion(released)
            }
            logger.error("could not mark messages as sending; they wait", metadata: ["error": "\(error)"])
            for message in batch {
                let failures = state.withLock { $0.lanes[Self.lane(of: message, in: $0)]?.failures ?? 0 }
                complete(message, .again(settings.backoff.delay(beforeRetry: failures + 1)))
            }
            return []
        }
    }

    /// Renews, every quarter of a lease in real time, the leases that are within half a lease
    /// of their end: a lane whose send takes long (a slow upload, a timeout) keeps its chat.
    func keepLeases() async {
        let realTime = ElapsedClock.continuous
        let lease = settings.laneLease
        while (try? await realTime.sleep(lease / 4)) != nil {
            let now = now()
            let renewing = state.withLock { state in
                state.lanes.compactMap { chat, lane in
                    lane.leaseUntil.flatMap { .seconds($0.timeIntervalSince(now)) < lease / 2 ? (chat, $0) : nil }
                }
            }
            guard !renewing.isEmpty else { continue }
            let until = now.addingTimeInterval(lease.seconds)
            do {
                let kept = try await store.write { [owner] transaction in
                    try renewing.map { try transaction.renewLane($0.0, in: .outbox, owner: owner, until: until) }
                }
                state.withLock { state in
                    for ((chat, held), kept) in zip(renewing, kept) where state.lanes[chat]?.leaseUntil == held {
                        state.lanes[chat]?.leaseUntil = kept ? until : nil
                    }
                }
            } catch {
                logger.warning("could not renew the leases of chats being sent to", metadata: ["error": "\(error)"])
            }
        }
    }
}
