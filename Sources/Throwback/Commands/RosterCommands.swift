import LastFM
import Networking

/// The most Last.fm users a chat's roster holds, so a weekly post stays readable.
let rosterLimit = 50

/// `track <user>`: adds a listener (`alice`, `lb:bob`, `librefm:carol`), in their service's
/// spelling, to this chat's roster.
public struct TrackCommand: Command {
    public let spec = CommandSpec(
        name: "track", arguments: "<user>", summary: "add a listener (Last.fm, lb:name, librefm:name) to this chat's weekly throwbacks", adminOnly: true
    )
    public let guards: [any CommandGuard]
    let weekly: WeeklyPostControls

    public func parse(_ invocation: CommandInvocation) -> Result<CommandInvocation, UsageError> {
        invocation.takingTargetChatAndUser()
    }

    public func execute(_ invocation: CommandInvocation) async -> CommandResult {
        let language = invocation.language
        guard let name = invocation.lastFMUser else { return .reply(.text(spec.usageMessage(UsageError(), in: language))) }
        let defaultChat = weekly.calendar.defaultChat
        return .change { transaction in
            let chat = invocation.targetChatID
            if !(try transaction.addToRoster([name], chat: chat, limit: rosterLimit)).isEmpty {
                let off = !(try transaction.settings(for: chat)).weeklyPostIsOn(defaultChat: defaultChat)
                return .text(language.text(off ? .trackDoneWeeklyOff : .trackDone, name))
            }
            return try transaction.roster(of: chat).contains { $0.nameKey == name.lowercased() }
                ? .text(language.text(.trackAlready, name))
                : .text(language.text(.trackFull, language.count(rosterLimit, .users)))
        }
    }
}

/// `untrack <user>`: removes a user from this chat's roster.
public struct UntrackCommand: Command {
    public let spec = CommandSpec(name: "untrack", arguments: "<user>", summary: "remove a listener from this chat's roster", adminOnly: true)
    public let guards: [any CommandGuard]

    public func parse(_ invocation: CommandInvocation) -> Result<CommandInvocation, UsageError> {
        invocation.takingTargetChat(andExactly: 1)
    }

    public func execute(_ invocation: CommandInvocation) async -> CommandResult {
        // `lastfm:alice` is stored as `alice`; a name no source accepts is looked up as typed.
        let name = ListenerName(parsing: invocation.arguments[0])?.qualified ?? invocation.arguments[0]
        let language = invocation.language
        return .change { transaction in
            guard let removed = try transaction.removeFromRoster(name, chat: invocation.targetChatID) else {
                return .text(language.text(.untrackNotTracked, String(name.prefix(40))))
            }
            return .text(language.text(.untrackDone, removed.lastFMName))
        }
    }
}

/// `tracked`: lists this chat's roster, each name in its service's spelling.
public struct TrackedCommand: Command {
    public let spec = CommandSpec(name: "tracked", arguments: "[chat-id]", summary: "list the listeners this chat tracks")
    public let guards: [any CommandGuard]

    public func parse(_ invocation: CommandInvocation) -> Result<CommandInvocation, UsageError> {
        invocation.takingTargetChat(maxArguments: 0)
    }

    public func execute(_ invocation: CommandInvocation) async -> CommandResult {
        .change { transaction in
            let roster = try transaction.roster(of: invocation.targetChatID)
            guard !roster.isEmpty else { return .text(Self.emptyRoster(of: invocation)) }
            let language = invocation.language
            return .text(language.text(.trackedList, language.number(roster.count), roster.map(\.lastFMName).joined(separator: ", ")))
        }
    }
}

extension TrackedCommand {
    /// What an empty roster says, for `tracked` and `postnow`.
    static func emptyRoster(of invocation: CommandInvocation) -> String {
        emptyRoster(invocation.targetChatID, askedIn: invocation.chatID, in: invocation.language)
    }

    static func emptyRoster(_ chat: Int64, askedIn asked: Int64, in language: Language) -> String {
        language.text(chat == asked ? .trackedNoneHere : .trackedNoneThere)
    }
}

/// `import <user>`: adds that user's Last.fm friends who are not on the roster yet. Only
/// Last.fm keeps friends: ListenBrainz and Libre.fm names are refused before anyone is asked.
public struct ImportCommand: Command {
    public let spec = CommandSpec(name: "import", arguments: "<user>", summary: "add a Last.fm user's friends to the roster", adminOnly: true)
    public let guards: [any CommandGuard]
    let lastFM: any LastFMClient

    public func parse(_ invocation: CommandInvocation) -> Result<CommandInvocation, UsageError> {
        invocation.takingTargetChatAndUser().flatMap { parsed in
            guard let name = parsed.lastFMUser, let listener = ListenerName(parsing: name), listener.source != .lastFM else {
                return .success(parsed)
            }
            return .failure(UsageError(Self.onlyLastFM(listener, in: parsed.language)))
        }
    }

    /// Why `import lb:bob` does nothing.
    static func onlyLastFM(_ listener: ListenerName, in language: Language) -> String {
        language.text(.importOnlyLastFM, listener.source.serviceName, listener.qualified)
    }

    public func execute(_ invocation: CommandInvocation) async -> CommandResult {
        let language = invocation.language
        guard let name = invocation.lastFMUser else { return .reply(.text(spec.usageMessage(UsageError(), in: language))) }
        let friends: [String]
        do {
            friends = try await lastFM.allFriends(user: name).map(\.name)
        } catch let error as ListeningError {
            return .reply(.text(error.userMessage(in: language)))
        } catch {
            return .reply(.text(language.text(.importFailed, name)))
        }
        guard !friends.isEmpty else { return .reply(.text(language.text(.importNoFriends, name))) }
        return .change { transaction in
            let added = try transaction.addToRoster(friends, chat: invocation.targetChatID, limit: rosterLimit)
            let (imported, skipped) = (language.count(added.count, .friends), language.number(friends.count - added.count))
            return .text(added.count < friends.count
                ? language.text(.importDoneSomeSkipped, imported, name, skipped, language.number(rosterLimit))
                : language.text(.importDone, imported, name, skipped))
        }
    }
}
