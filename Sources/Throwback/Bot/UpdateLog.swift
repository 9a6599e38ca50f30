import Logging

/// Where an update's log lines go, tagged with the update, its chat and its command. The
/// tags are set when a line is written, not per update: nearly every update writes none
/// but its command's line.
struct UpdateLog: Sendable {
    let base: Logger
    let update: Int64
    let chat: Int64
    var command: String?

    var logger: Logger {
        var logger = base
        for (key, value) in tags { logger[metadataKey: key] = value }
        return logger
    }

    private var tags: Logger.Metadata {
        var tags: Logger.Metadata = ["update": "\(update)", "chat": "\(chat)"]
        if let command { tags["command"] = "\(command)" }
        return tags
    }

    /// The operator's one line per command, at info: what kind of update asked, how the
    /// command ended, and how long it took from its turn to its answer being queued. It names
    /// the command and nothing else of the message: arguments are names people typed.
    func handled(_ ending: CommandEnding, kind: CommandUpdateKind, after duration: Duration) {
        // The tags go with the line, not into a logger made for it: setting a logger's tags
        // copies its handler for each one.
        base.info("command handled", metadata: {
            var metadata = tags
            metadata["kind"] = "\(kind.rawValue)"
            metadata["outcome"] = "\(ending.outcome)"
            metadata["ms"] = "\(Int((duration / .milliseconds(1)).rounded()))"
            if case .refused(let guardName) = ending { metadata["guard"] = "\(guardName)" }
            return metadata
        }())
    }
}

/// The kind of update a command came in, by the Bot API's name for it.
enum CommandUpdateKind: String {
    case message
    case channelPost = "channel_post"
    case callbackQuery = "callback_query"
}

/// How a command ended, as its log line says.
enum CommandEnding: Equatable {
    /// It ran; its answer is queued (or it had nothing to say).
    case answered
    /// A guard refused it: the rate limit on arrival, or one of the command's own.
    case refused(by: String)
    /// Its arguments did not fit; a usage line is the answer.
    case usage
    /// It could not be answered as asked: what it changed could not be saved, or the week a
    /// year button asked for could not be had.
    case failed
    /// A button that no longer works: its data or its message is gone.
    case expired

    init(_ result: CommandOutcome.Result) {
        switch result {
        case .ran: self = .answered
        case .usage: self = .usage
        case .refused(let guardName): self = .refused(by: guardName)
        }
    }

    var outcome: String {
        switch self {
        case .answered: "answered"
        case .refused: "refused"
        case .usage: "usage"
        case .failed: "failed"
        case .expired: "expired"
        }
    }
}
