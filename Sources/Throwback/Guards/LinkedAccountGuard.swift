/// Resolves `me` (or no user) to the sender's linked Last.fm name, or says how to link one.
public struct LinkedAccountGuard: CommandGuard {
    private let store: BotStore

    public init(store: BotStore) {
        self.store = store
    }

    public func check(_ invocation: CommandInvocation) async -> GuardDecision {
        guard invocation.lastFMUser == nil else { return .allow(invocation) }
        guard let name = try? await store.linkedName(of: invocation.userID) else { return .deny(invocation.language.text(.linkRequired)) }
        var resolved = invocation
        resolved.lastFMUser = name
        return .allow(resolved)
    }
}
