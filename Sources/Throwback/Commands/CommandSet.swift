import LastFM
import Networking
import Telegram

/// The bot's full command set, wired with its guards: the one place that says which
/// guard protects which command.
public enum CommandSet {
    public struct Dependencies: Sendable {
        public var engine: ThrowbackEngine
        public var lastFM: any LastFMClient
        public var store: BotStore
        public var rateLimit: RateLimitGuard
        public var breaker: CircuitBreaker
        public var admin: AdminGuard
        public var validUser: ValidListenerGuard
        public var weekly: WeeklyPostControls
        /// Added to "no such Last.fm user", e.g. the demo's list of users.
        public var unknownUserHint: (@Sendable (Language) -> String)?
        /// Whether the commands are answered in Telegram, where inline mode exists, rather
        /// than in a terminal.
        public var inlineMode: Bool

        public init(
            engine: ThrowbackEngine, lastFM: any LastFMClient, store: BotStore, rateLimit: RateLimitGuard,
            breaker: CircuitBreaker, admin: AdminGuard, validUser: ValidListenerGuard, weekly: WeeklyPostControls,
            unknownUserHint: (@Sendable (Language) -> String)? = nil, inlineMode: Bool = true
        ) {
            self.unknownUserHint = unknownUserHint
            self.inlineMode = inlineMode
            self.engine = engine
            self.lastFM = lastFM
            self.store = store
            self.rateLimit = rateLimit
            self.breaker = breaker
            self.admin = admin
            self.validUser = validUser
            self.weekly = weekly
        }
    }

    /// Every command, in the order `help` and the command menu list them. Every message for
    /// the bot passes the rate limit first, when it arrives (`CommandRouter.admit`). Only
    /// `import`, which always needs Last.fm, is refused outright while Last.fm is down; the
    /// others ask the client, whose breaker refuses only calls the cache cannot answer.
    public static func standard(_ d: Dependencies) -> [any Command] {
        let healthy = LastFMHealthGuard(breaker: d.breaker)
        var commands: [any Command] = [
            throwback(d),
            LinkCommand(guards: [d.validUser]),
            UnlinkCommand(guards: []),
            // Anyone in their own private chat; in a group or channel, its admins.
            IDCommand(guards: [d.admin]),
            TrackedCommand(guards: [d.admin.forOtherChats]),
            TrackCommand(guards: [d.admin, d.validUser], weekly: d.weekly),
            UntrackCommand(guards: [d.admin]),
            ImportCommand(guards: [d.admin, healthy, d.validUser], lastFM: d.lastFM),
            FilterCommand(guards: [d.admin]),
            CoversCommand(guards: [d.admin]),
            LanguageCommand(guards: [d.admin]),
            WeeklyCommand(guards: [d.admin], controls: d.weekly),
            PostNowCommand(guards: [d.admin], controls: d.weekly),
        ]
        commands.insert(HelpCommand(guards: [], otherSpecs: commands.map(\.spec), inlineMode: d.inlineMode), at: 5)
        return commands
    }

    /// `throwback`, guarded by the account link (for `me`). It has no health guard: while
    /// Last.fm is down, a throwback the cache can answer is still answered.
    public static func throwback(_ d: Dependencies) -> ThrowbackCommand {
        ThrowbackCommand(engine: d.engine, store: d.store, guards: [LinkedAccountGuard(store: d.store)], unknownUserHint: d.unknownUserHint)
    }
}
