/// One condition of a command's can-execute signal, as in the original app's RACCommands:
/// it allows the invocation (possibly refined, e.g. with a canonical name) or denies it
/// with a reason the user sees.
public protocol CommandGuard: Sendable {
    /// Whether the guard runs before the arguments are parsed (rate limits count bad input too).
    var runsBeforeParsing: Bool { get }

    func check(_ invocation: CommandInvocation) async -> GuardDecision
}

extension CommandGuard {
    public var runsBeforeParsing: Bool { false }
}

/// A guard's verdict.
public enum GuardDecision: Sendable, Equatable {
    /// Go on, with this (possibly refined) invocation.
    case allow(CommandInvocation)
    /// Refuse, telling the user why in one short line.
    case deny(String)
    /// Refuse without a word (a user who was already told to slow down).
    case ignore
}

/// One use of a command: who typed it where, and what it is about.
public struct CommandInvocation: Sendable, Equatable {
    /// The chat the command was typed in; replies go there.
    public var chatID: Int64
    public var isPrivateChat: Bool
    public var userID: Int64
    /// Set when an anonymous group admin sent the command: the group it was sent on behalf of.
    public var senderChatID: Int64?
    /// The forum topic the command came from, where replies and posts belong.
    public var topicID: Int64?
    /// The message that carried the command, for an answer that comes later to quote it.
    public var messageID: Int64?
    /// The words after the command word.
    public var arguments: [String]
    /// The chat the command manages: `chatID`, or an id given as the last argument.
    public var targetChatID: Int64
    /// The Last.fm user the command is about, once known (canonical after validation).
    public var lastFMUser: String?
    /// Years back, for throwbacks.
    public var yearsAgo: Int?
    /// A number argument, e.g. the filter's minimum play count.
    public var number: Int?
    /// An on/off argument.
    public var toggle: Bool?
    /// The language the answer is written in: the chat's, or in a private chat the person's.
    public var language: Language

    public init(
        chatID: Int64, isPrivateChat: Bool, userID: Int64, senderChatID: Int64? = nil, topicID: Int64? = nil, messageID: Int64? = nil,
        arguments: [String] = [], language: Language = .english
    ) {
        self.language = language
        self.messageID = messageID
        self.chatID = chatID
        self.isPrivateChat = isPrivateChat
        self.userID = userID
        self.senderChatID = senderChatID
        self.topicID = topicID
        self.arguments = arguments
        self.targetChatID = chatID
    }

    /// Who the command counts against for rate limits: the person, or for an anonymous
    /// admin the group they speak for.
    public var senderKey: Int64 { senderChatID ?? userID }
}

extension CommandInvocation {
    /// This invocation with a chat id given as its last argument taken as the chat it
    /// manages (`covers on <chat-id>`): an admin's way to change another chat's settings.
    func targetingTheChatNamedLast() -> CommandInvocation {
        var parsed = self
        if let last = parsed.arguments.last, let chat = Int64(last) {
            parsed.targetChatID = chat
            parsed.arguments.removeLast()
        }
        return parsed
    }
}
