import Foundation

/// `filter <n>`: hides albums with fewer than n plays in this chat.
public struct FilterCommand: Command {
    public static let range = 1...1000
    public let spec = CommandSpec(name: "filter", arguments: "<n>", summary: "hide albums with fewer than n plays in this chat", adminOnly: true)
    public let guards: [any CommandGuard]

    public func parse(_ invocation: CommandInvocation) -> Result<CommandInvocation, UsageError> {
        invocation.takingTargetChat(andExactly: 1).flatMap { parsed in
            guard let n = Int(parsed.arguments[0]), Self.range.contains(n) else {
                let language = parsed.language
                return .failure(UsageError(language.text(.filterRange, language.number(Self.range.lowerBound), language.number(Self.range.upperBound))))
            }
            var numbered = parsed
            numbered.number = n
            return .success(numbered)
        }
    }

    public func execute(_ invocation: CommandInvocation) async -> CommandResult {
        let (n, language) = (invocation.number ?? 1, invocation.language)
        return .change { transaction in
            try transaction.updateSettings(for: invocation.targetChatID) { $0.minimumPlayCount = n }
            return .text(n == 1 ? language.text(.filterOff) : language.text(.filterOn, language.count(n, .plays)))
        }
    }
}

/// `weekly`, `weekly on|off`, `weekly <day> <HH:MM> [zone]`: this chat's weekly post.
public struct WeeklyCommand: Command {
    public let spec = CommandSpec(
        name: "weekly", arguments: "[on|off | <day> <HH:MM> [zone]]",
        summary: "turn this chat's weekly throwback post on or off, set its day and time, or see when it is due", adminOnly: true
    )
    public let guards: [any CommandGuard]
    let controls: WeeklyPostControls

    private enum Change: Equatable, Sendable {
        case status
        case toggle(Bool)
        /// The zone as the admin wrote it, which is how it is shown.
        case schedule(WeeklySchedule, zoneName: String?)
    }

    public func parse(_ invocation: CommandInvocation) -> Result<CommandInvocation, UsageError> {
        let parsed = invocation.targetingTheChatNamedLast()
        return Self.change(from: parsed.arguments, in: parsed.language).map { _ in parsed }
    }

    private static func change(from words: [String], in language: Language) -> Result<Change, UsageError> {
        switch words.count {
        case 0:
            return .success(.status)
        case 1:
            switch words[0].lowercased() {
            case "on": return .success(.toggle(true))
            case "off": return .success(.toggle(false))
            default: return .failure(UsageError(language.text(.weeklySayOnOrOff)))
            }
        case 2, 3:
            guard WeeklySchedule.day(words[0]) != nil else { return .failure(UsageError(language.text(.weeklyNotADay, String(words[0].prefix(20))))) }
            guard let schedule = WeeklySchedule("\(words[0]) \(words[1])") else {
                return .failure(UsageError(language.text(.weeklyNotATime, String(words[1].prefix(20)))))
            }
            guard words.count == 3 else { return .success(.schedule(schedule, zoneName: nil)) }
            guard TimeZone.named(words[2]) != nil else {
                return .failure(UsageError(language.text(.weeklyNotAZone, String(words[2].prefix(40)))))
            }
            return .success(.schedule(schedule, zoneName: words[2]))
        default:
            return .failure(UsageError())
        }
    }

    public func execute(_ invocation: CommandInvocation) async -> CommandResult {
        let language = invocation.language
        guard case .success(let change) = Self.change(from: invocation.arguments, in: language) else {
            return .reply(.text(spec.usageMessage(UsageError(), in: language)))
        }
        let chat = invocation.targetChatID
        // The post goes to the forum topic where it was turned on.
        let topic = chat == invocation.chatID ? invocation.topicID : nil
        let controls = controls
        // From now on its posts are due: one whose time passed before was not missed.
        let since = Int64(controls.now().timeIntervalSince1970)
        return .change({ transaction in
            let settings: ChatSettings
            switch change {
            case .status:
                settings = try transaction.settings(for: chat)
            case .toggle(let on):
                settings = try transaction.updateSettings(for: chat) {
                    $0.weeklyPost = on
                    if on {
                        $0.active = true
                        $0.weeklyTopicID = topic
                        $0.weeklySince = since
                    }
                }
            case let .schedule(schedule, zoneName):
                settings = try transaction.updateSettings(for: chat) {
                    $0.schedule = schedule.description
                    if let zoneName { $0.scheduleZone = zoneName }
                    $0.weeklySince = since
                }
            }
            return .text(controls.status(of: settings, in: language))
        }, then: change == .status ? nil : { @Sendable in controls.changes.notify() })
    }
}

/// `postnow`: posts this chat's weekly throwbacks right away; it counts as the week's post.
public struct PostNowCommand: Command {
    public let spec = CommandSpec(name: "postnow", summary: "post this chat's weekly throwbacks now", adminOnly: true)
    public let guards: [any CommandGuard]
    let controls: WeeklyPostControls

    public func parse(_ invocation: CommandInvocation) -> Result<CommandInvocation, UsageError> {
        invocation.takingTargetChat(maxArguments: 0)
    }

    public func execute(_ invocation: CommandInvocation) async -> CommandResult {
        await controls.posting.postNow(invocation)
    }
}

/// Posting a chat's weekly post on request: to Telegram, or, in a terminal, as the reply.
public protocol WeeklyPosting: Sendable {
    /// Posts `invocation.targetChatID`'s weekly post now: its claim commits with the command.
    func postNow(_ invocation: CommandInvocation) async -> CommandResult
}

/// What the weekly commands need: when posts are due, how to post one now, and whom to tell
/// about a change.
public struct WeeklyPostControls: Sendable {
    public var calendar: WeeklyCalendar
    public var changes: ScheduleChanges
    public var posting: any WeeklyPosting
    public var now: @Sendable () -> Date

    public init(calendar: WeeklyCalendar, changes: ScheduleChanges, posting: any WeeklyPosting, now: @escaping @Sendable () -> Date) {
        self.calendar = calendar
        self.changes = changes
        self.posting = posting
        self.now = now
    }

    /// One line on a chat's weekly post: off, or when the next one is due.
    func status(of settings: ChatSettings, in language: Language) -> String {
        let time = calendar.time(for: settings)
        guard settings.weeklyPostIsOn(defaultChat: calendar.defaultChat) else {
            return language.text(.weeklyStatusOff, time.description)
        }
        return language.text(.weeklyStatusOn, time.moment(time.next(after: now()), in: language))
    }
}

/// `covers`, `covers on|off`: whether throwbacks in this chat come as a cover collage.
public struct CoversCommand: Command {
    public let spec = CommandSpec(
        name: "covers", arguments: "[on|off]", summary: "show throwbacks in this chat as an album-cover collage, or as text only",
        adminOnly: true
    )
    public let guards: [any CommandGuard]

    public func parse(_ invocation: CommandInvocation) -> Result<CommandInvocation, UsageError> {
        let parsed = invocation.targetingTheChatNamedLast()
        guard parsed.arguments.count <= 1 else { return .failure(UsageError()) }
        guard parsed.arguments.allSatisfy({ ["on", "off"].contains($0.lowercased()) }) else {
            return .failure(UsageError(parsed.language.text(.coversSayOnOrOff)))
        }
        return .success(parsed)
    }

    public func execute(_ invocation: CommandInvocation) async -> CommandResult {
        let chat = invocation.targetChatID
        let change = invocation.arguments.first.map { $0.lowercased() == "on" }
        let language = invocation.language
        return .change { transaction in
            let settings = if let on = change {
                try transaction.updateSettings(for: chat) { $0.covers = on }
            } else {
                try transaction.settings(for: chat)
            }
            return .text(language.text(settings.covers ? .coversOn : .coversOff))
        }
    }
}
