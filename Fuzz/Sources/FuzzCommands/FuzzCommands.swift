// Chat text through the command parser and the full command router, as a private chat and as a
// group would send it. Commands run against the offline demo Last.fm data and an in-memory store.
import FuzzSupport
import Networking
import Throwback

/// The real command set, built once: the terminal wiring (no Telegram, so nobody is rate
/// limited) over the demo transport. The Last.fm request rate is raised so that the fuzzer
/// never waits for the token bucket; everything else is the default wiring.
private enum Bot {
    static let router: CommandRouter = {
        Quiet.setUp()
        do {
            let store = try BotStore.inMemory()
            return BotAssembly(
                configuration: BotConfiguration(), lastFMTransport: DemoLastFMTransport(), lastFMKey: Secret("demo"),
                options: BotAssembly.Options(lastFMRequestsPerSecond: 1_000_000)
            ).terminal(store: store).commands.router
        } catch {
            fatalError("fuzz harness: cannot open an in-memory store: \(error)")
        }
    }()

    static let specs = router.specs

    /// A private chat is its user's own chat, so admin commands pass there.
    static let privateChat = CommandInvocation(chatID: 4242, isPrivateChat: true, userID: 4242)
    static let group = CommandInvocation(chatID: -1_001_234_567_890, isPrivateChat: false, userID: 4242)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)

    for requireSlash in [false, true] {
        checkParse(text, CommandParser().parse(text, specs: Bot.specs, requireSlash: requireSlash), requireSlash: requireSlash)
    }
    // A named parser: a command for another bot is never this bot's.
    let named = CommandParser(botUsername: "TheBot").parse(text, specs: Bot.specs, requireSlash: false)
    if named == .addressedToAnotherBot, !text.contains("@") {
        violated("addressed to another bot, without an @", text.debugDescription)
    }

    for context in [Bot.privateChat, Bot.group] {
        let reply = blocking { await Bot.router.reply(to: text, context: context) }
        let place = context.isPrivateChat ? "private chat" : "group"
        // In groups only a message that starts with "/" is a command; other text is chat.
        if !context.isPrivateChat, !text.hasPrefix("/"), let reply {
            violated("group: a reply to text without a leading /", "text: \(text.debugDescription)\nreply: \(reply)")
        }
        if reply == .silence {
            violated("\(place): the router returned .silence instead of nil", text.debugDescription)
        }
        guard let reply, let html = reply.rendered(with: .telegram) else { continue }
        checkTelegramMessage(html, "\(place) reply to \(excerpt(text.debugDescription, limit: 300))")
        _ = reply.rendered(with: .plain)
    }
    return 0
}

/// What the parser says must agree with the grammar.
private func checkParse(_ text: String, _ parsed: ParsedMessage, requireSlash: Bool) {
    let where_ = "parse(requireSlash: \(requireSlash)) of \(excerpt(text.debugDescription, limit: 300))"
    if requireSlash, !text.hasPrefix("/"), parsed != .notACommand {
        violated("\(where_): text without a leading / was taken as \(parsed)")
    }
    switch parsed {
    case let .command(spec, arguments):
        if !Bot.specs.contains(spec) { violated("\(where_): unknown spec \(spec.name)") }
        if text.count > CommandParser.maxCommandLength {
            violated("\(where_): \(text.count) characters accepted as a command")
        }
        for argument in arguments where argument.isEmpty || argument.contains(where: \.isWhitespace) {
            violated("\(where_): argument \(argument.debugDescription) is empty or holds whitespace")
        }
    case .tooLong(let spec):
        if !Bot.specs.contains(spec) { violated("\(where_): unknown spec \(spec.name)") }
        if text.count <= CommandParser.maxCommandLength {
            violated("\(where_): \(text.count) characters called too long")
        }
    case .unknownCommand:
        if !text.hasPrefix("/") && !text.drop(while: \.isWhitespace).hasPrefix("/") {
            violated("\(where_): an unknown command without a /")
        }
    case .addressedToAnotherBot:
        violated("\(where_): a parser without a bot name said another bot was addressed")
    case .notACommand:
        break
    }
}

/// The executable's entry point under SwiftPM's name for it; libFuzzer takes over from here.
@_cdecl("FuzzCommands_main")
public func fuzzerEntry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv)
}
