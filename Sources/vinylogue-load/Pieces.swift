import Foundation
import LastFM
import Networking
import Telegram
import Throwback

/// The warm path of one throwback, piece by piece, in this process: what each costs per
/// update when nothing waits on the network. The pieces are the bot's own functions,
/// called as the bot calls them; Last.fm answers from the demo data through the SQLite
/// cache, which the first call fills.
struct Pieces {
    var iterations: Int
    /// Only the pieces whose name contains this, to profile one (under valgrind, say).
    var only: String?

    /// One piece: a name, and work to repeat.
    private struct Piece {
        var name: String
        var work: () async throws -> Void
    }

    func run() async throws -> [(String, Duration)] {
        let store = try BotStore.inMemory()
        let assembly = BotAssembly(configuration: BotConfiguration(), lastFMTransport: DemoLastFMTransport(), lastFMKey: Secret("demo"))
        let session = assembly.terminal(store: store)
        let router = session.commands.router
        let context = CommandInvocation(chatID: 7, isPrivateChat: true, userID: 7)
        let engine = ThrowbackEngine(lastFM: assembly.lastFM(breaker: CircuitBreaker(), store: store))
        let formatter = ChartFormatter(markup: .telegramHTML)
        let batch = Self.updatesBody(count: 100)
        guard case .throwback(let outcome)? = await router.reply(to: "/tb alice 3", context: context) else {
            throw LoadError("the demo's alice has no throwback three years ago")
        }
        let html = formatter.format(outcome)
        // Twice as many charts as the formatter keeps, in turn: each is formatted anew.
        guard case .chart(let summary) = outcome else { throw LoadError("the demo's alice has no chart three years ago") }
        let unseen = (0..<128).map { index in
            var chart = summary
            chart.user = "listener\(index)"
            return chart
        }
        var nextUnseen = 0
        let messages = assembly.telegramClients(transport: CannedAnswer(body: Self.sentBody(html: html)), token: Secret("42:PIECES"), store: store).messages
        let request = TelegramRequest<SentMessage>.sendMessage(chatID: 7, html: html).receipted
        let pieces = [
            Piece(name: "parse an update (a share of a 100-update getUpdates body)") {
                let updates: [ReceivedUpdate] = try HTTPTelegramClient.interpret(HTTPResponse(status: 200, body: batch), method: "getUpdates")
                precondition(updates.count == 100)
            },
            Piece(name: "route: parse the command") {
                _ = router.parse("/tb alice 3", context: context)
            },
            Piece(name: "engine: the week from the cache") {
                _ = try await engine.throwback(user: "alice", yearsAgo: 3)
            },
            Piece(name: "format the chart as HTML, a chart formatted before") {
                _ = formatter.format(outcome)
            },
            Piece(name: "format the chart as HTML, a chart not formatted before") {
                _ = formatter.format(unseen[nextUnseen])
                nextUnseen = (nextUnseen + 1) % unseen.count
            },
            Piece(name: "encode sendMessage") {
                _ = TelegramRequest<SentMessage>.sendMessage(chatID: 7, html: html).parametersJSON
            },
            Piece(name: "send it through the outbox's client chain, against a canned answer") {
                let receipt = try await messages.send(request)
                precondition(receipt.message?.messageID == 12345)
            },
            Piece(name: "the command through the router: guards and engine") {
                _ = await router.reply(to: "/tb alice 3", context: context)
            },
        ]
        var results: [(String, Duration)] = []
        for piece in pieces where only.map(piece.name.localizedCaseInsensitiveContains) ?? true {
            // The parse piece decodes 100 updates at a time.
            let share = piece.name.hasPrefix("parse") ? 100 : 1
            results.append((piece.name, try await Self.median(of: piece.work, iterations: max(1, iterations / share)) / share))
        }
        return results
    }

    /// The median over 5 batches of the time per call, after one batch to warm up.
    private static func median(of work: () async throws -> Void, iterations: Int) async throws -> Duration {
        var perCall: [Duration] = []
        for _ in 0..<6 {
            let start = ContinuousClock.now
            for _ in 0..<iterations { try await work() }
            perCall.append((ContinuousClock.now - start) / iterations)
        }
        return perCall.dropFirst().sorted()[2]
    }

    /// A transport that answers every request with the same body, at once.
    private struct CannedAnswer: HTTPTransport {
        var body: Data

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            HTTPResponse(status: 200, body: body)
        }
    }

    /// Telegram's answer to a `sendMessage` of `html`: the whole message, as it sends it.
    private static func sentBody(html: String) -> Data {
        var body: [UInt8] = []
        JSONString.append(html, to: &body)
        return Data(("""
            {"ok":true,"result":{"message_id":12345,"from":{"id":42,"is_bot":true,"first_name":"Vinylogue","username":"VinylogueBot"},\
            "chat":{"id":7000001,"first_name":"Load","type":"private"},"date":1700000000,"text":
            """ + String(decoding: body, as: UTF8.self) + """
            ,"entities":[{"offset":0,"length":5,"type":"bold"}],"link_preview_options":{"is_disabled":true}}}
            """).utf8)
    }

    /// A `getUpdates` answer of `count` messages, as Telegram sends it.
    private static func updatesBody(count: Int) -> Data {
        let updates = (0..<count).map { index in
            """
            {"update_id":\(1000 + index),"message":{"message_id":\(index + 1),"date":1700000000,\
            "chat":{"id":\(7_000_001 + index),"type":"private","first_name":"Load"},\
            "from":{"id":\(7_000_001 + index),"is_bot":false,"first_name":"Load"},"text":"/tb alice 3",\
            "entities":[{"type":"bot_command","offset":0,"length":3}]}}
            """
        }
        return Data(("{\"ok\":true,\"result\":[" + updates.joined(separator: ",") + "]}").utf8)
    }
}
