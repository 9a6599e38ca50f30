// Inline query text (`@bot …`), answered as the bot would answer it: against the demo Last.fm
// data and an in-memory store, for an asker with a linked account and one without.
import FuzzSupport
import Networking
import Telegram
import Throwback

/// Inline answers never reach Telegram here: the harness reads the request.
private struct NoTelegram: TelegramClient {
    func send<Response>(_ request: TelegramRequest<Response>) async throws -> Response {
        throw TelegramError.badRequest("not sent while fuzzing")
    }
}

private enum Bot {
    static let linked: Int64 = 4242
    static let unlinked: Int64 = 4343

    static let inline: InlineThrowbacks = {
        Quiet.setUp()
        do {
            let store = try BotStore.inMemory()
            let session = BotAssembly(
                configuration: BotConfiguration(), lastFMTransport: DemoLastFMTransport(), lastFMKey: Secret("demo"),
                options: BotAssembly.Options(lastFMRequestsPerSecond: 1_000_000)
            ).terminal(store: store)
            blocking { try? await store.link(telegramUser: linked, to: "alice") }
            return InlineThrowbacks(
                router: session.commands.router, throwback: session.commands.throwback, store: store, photos: session.photos,
                telegram: NoTelegram()
            )
        } catch {
            fatalError("fuzz harness: cannot open an in-memory store: \(error)")
        }
    }()
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    for asker in [Bot.linked, Bot.unlinked] {
        let query = InlineQuery(id: "q", from: User(id: asker, isBot: false, firstName: "Fuzz"), query: text)
        let request = blocking { await Bot.inline.answerRequest(for: query) }
        check(request, "asker \(asker), query \(excerpt(text.debugDescription, limit: 300))")
    }
    return 0
}

/// What Telegram would refuse in an answer: more than 50 results, ids that repeat or are not
/// 1–64 bytes, an empty title, HTML it cannot parse or that is too long, a bad button.
private func check(_ request: TelegramRequest<TelegramOK>, _ context: String) {
    guard request.method == "answerInlineQuery", case .array(let results)? = request.parameters["results"] else {
        violated("not an inline answer", context)
    }
    if results.count > 50 { violated("\(results.count) results", context) }
    var ids = Set<String>()
    for case .object(let result) in results {
        guard case .string(let id)? = result["id"], (1...64).contains(id.utf8.count), ids.insert(id).inserted else {
            violated("a result id that is missing, repeated or not 1–64 bytes", context)
        }
        guard case .string(let title)? = result["title"], !title.isEmpty else { violated("a result without a title", context) }
        if case .object(let content)? = result["input_message_content"], case .string(let html)? = content["message_text"] {
            checkTelegramMessage(html, context)
        } else if case .string(let caption)? = result["caption"] {
            if let problem = TelegramHTML.captionProblem(in: caption) { violated("caption: \(problem)", context) }
        } else {
            violated("a result with neither text nor caption", context)
        }
    }
    if case .object(let button)? = request.parameters["button"] {
        guard case .string(let start)? = button["start_parameter"], (1...64).contains(start.count),
              start.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-") })
        else { violated("a button Telegram would refuse", context) }
    }
}

/// The executable's entry point under SwiftPM's name for it; libFuzzer takes over from here.
@_cdecl("FuzzInline_main")
public func fuzzerEntry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv)
}
