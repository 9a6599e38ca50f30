/// Resolves `me` (or no user) to the sender's linked Last.fm name, or says how to link one.
public struct LinkedAccountGuard: CommandGuard {
    static let notLinked = "You haven’t linked a Last.fm account. Send link <lastfm-user>, or name one: throwback <user> [years]."

    private let store: BotStore

    public init(store: BotStore) {
        self.store = store
    }

    public func check(_ invocation: CommandInvocation) async -> GuardDecision {
        guard invocation.lastFMUser == nil else { return .allow(invocation) }
        guard let name = try? await store.linkedName(of: invocation.userID) else { return .deny(Self.notLinked) }
        var resolved = invocation
        resolved.lastFMUser = name
        return .allow(resolved)
    }
}
