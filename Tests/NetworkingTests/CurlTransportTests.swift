import Foundation
import Networking
import Synchronization
import Testing
import TestSupport
import TestLogging

@Suite(.capturingLogs) struct CurlTransportTests {
    /// A path shaped like Telegram's, whose token must never appear in an error.
    static let secretPath = "/bot123456:SECRET-token/getUpdates"

    /// Runs `body` against a Hummingbird fake, which is stopped however `body` ends.
    private func withFakeServer(
        _ handler: @escaping @Sendable (FakeRequest) async -> FakeResponse,
        _ body: (FakeHTTPServer) async throws -> Void
    ) async throws {
        let server = try await FakeHTTPServer.start(handler: handler)
        do {
            try await body(server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func getRoundTrip() async throws {
        try await withFakeServer({ request in
            .json(#"{"method":"\#(request.method)","path":"\#(request.path)","q":"\#(request.query["q"] ?? "")"}"#, status: request.path == "/missing" ? 404 : 200)
        }) { server in
            let transport = CurlTransport()

            let response = try await transport.send(HTTPRequest(url: server.baseURL.appending(path: "/hello").appending(queryItems: [URLQueryItem(name: "q", value: "a b")])))
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"method":"GET","path":"/hello","q":"a b"}"#)

            let missing = try await transport.send(HTTPRequest(url: server.baseURL.appending(path: "/missing")))
            #expect(missing.status == 404)
        }
    }

    @Test func postRoundTrip() async throws {
        try await withFakeServer({ request in
            FakeResponse(status: request.method == "POST" ? 201 : 400, body: request.body)
        }) { server in
            let transport = CurlTransport()
            let body = Data(#"{"chat_id":42,"text":"héllo"}"#.utf8)

            let response = try await transport.send(HTTPRequest(
                method: "POST", url: server.baseURL.appending(path: "/sendMessage"),
                headers: ["Content-Type": "application/json"], body: body
            ))
            #expect(response.status == 201)
            #expect(response.body == body)
        }
    }

    @Test func headersAndMethodReachTheServerAndConnectionsAreReused() async throws {
        let seen = Mutex<[RawHTTPRequest]>([])
        let server = try RawHTTPServer.start { request in
            seen.withLock { $0.append(request) }
            return .ok("done")
        }
        defer { server.stop() }
        let transport = CurlTransport()

        for index in 0..<5 {
            let response = try await transport.send(HTTPRequest(
                method: index.isMultiple(of: 2) ? "POST" : "DELETE", url: server.baseURL.appending(path: "/item/\(index)"),
                headers: ["Content-Type": "application/json", "X-Attempt": "\(index)"], body: Data("{}".utf8)
            ))
            #expect(response.status == 200)
            #expect(response.body == Data("done".utf8))
        }
        let requests = seen.withLock { $0 }
        #expect(requests.map(\.method) == ["POST", "DELETE", "POST", "DELETE", "POST"])
        #expect(requests.map(\.path) == (0..<5).map { "/item/\($0)" })
        #expect(requests.map { $0.headers["x-attempt"] } == (0..<5).map { "\($0)" })
        #expect(requests.allSatisfy { $0.headers["content-type"] == "application/json" && $0.headers["expect"] == nil })
        #expect(requests.allSatisfy { $0.body == Data("{}".utf8) })
        #expect(server.connectionsAccepted == 1)
    }

    /// The curl thread leaves an idle connection's socket in its event set until it is next
    /// needed: a connection the server closed meanwhile must not stall the next request,
    /// whether or not its socket's number comes back for the new connection.
    @Test func connectionsTheServerClosesWhileIdleAreReplaced() async throws {
        let response = Data("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\ndone".utf8)
        let server = try RawHTTPServer.start { _ in .bytes(response, close: true) }
        defer { server.stop() }
        let transport = CurlTransport()

        for index in 0..<6 {
            let answer = try await transport.send(HTTPRequest(url: server.baseURL.appending(path: "/item/\(index)")))
            #expect(answer.status == 200)
            #expect(answer.body == Data("done".utf8))
        }
        #expect(server.connectionsAccepted == 6)
    }

    @Test func timesOutPerRequest() async throws {
        let server = try RawHTTPServer.start { _ in .silence }
        defer { server.stop() }
        let transport = CurlTransport()

        // The server never answers: only the request's own timeout ends the call.
        let error = await #expect(throws: TransportError.self) {
            try await transport.send(HTTPRequest(url: server.baseURL.appending(path: Self.secretPath), timeout: .milliseconds(200)))
        }
        #expect(error?.description == "request timed out")
        #expect(error?.requestMayHaveBeenSent == true)
    }

    @Test func cancellationOfAnUnansweredRequestReturnsPromptlyAndDropsTheConnection() async throws {
        let server = try RawHTTPServer.start { _ in .silence }
        defer { server.stop() }
        var events = server.events.makeAsyncIterator()
        let transport = CurlTransport()
        let longPoll = Task {
            try await transport.send(HTTPRequest(url: server.baseURL.appending(path: "/getUpdates"), timeout: .seconds(60)))
        }
        #expect(await events.next() == .request(path: "/getUpdates"))

        let clock = ContinuousClock()
        let cancelled = clock.now
        longPoll.cancel()
        let result = await longPoll.result
        #expect(clock.now - cancelled < .seconds(5))
        #expect(throws: CancellationError.self) { try result.get() }
        // The transfer was removed, not merely abandoned: its connection is closed.
        #expect(await events.next() == .closedByClient)
    }

    /// A request cancelled while it waits for a connection never started, and says so; one
    /// cancelled once the server has it may have been sent.
    @Test func aCancelledRequestSaysWhetherItsBytesMayHaveLeft() async throws {
        let server = try RawHTTPServer.start { _ in .silence }
        defer { server.stop() }
        var events = server.events.makeAsyncIterator()
        let transport = CurlTransport(maxConnectionsPerHost: 1)
        let (sent, held) = (SendProgress(), SendProgress())
        let first = Task {
            try await SendProgress.$current.withValue(sent) {
                try await transport.send(HTTPRequest(url: server.baseURL.appending(path: "/first"), timeout: .seconds(60)))
            }
        }
        #expect(await events.next() == .request(path: "/first"))
        // The host's one connection is taken: this one waits for it.
        let second = Task {
            try await SendProgress.$current.withValue(held) {
                try await transport.send(HTTPRequest(url: server.baseURL.appending(path: "/second"), timeout: .seconds(60)))
            }
        }
        second.cancel()
        first.cancel()
        await #expect(throws: CancellationError.self) { try await second.value }
        await #expect(throws: CancellationError.self) { try await first.value }
        #expect(held.certainlyNotSent)
        #expect(!sent.certainlyNotSent)
        #expect(await events.next() == .closedByClient)
    }

    @Test func cancellationBeforeTheRequestStarts() async throws {
        let server = try RawHTTPServer.start { _ in .ok("answered") }
        defer { server.stop() }
        let transport = CurlTransport()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(HTTPRequest(url: server.baseURL))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        // The transport still works for the next request, on the same server.
        let response = try await transport.send(HTTPRequest(url: server.baseURL))
        #expect(response.body == Data("answered".utf8))
        #expect(server.connectionsAccepted == 1)
    }

    @Test func cancellationsRacingCompletionsEachEndTheirCallOnce() async throws {
        try await withFakeServer({ _ in .json("{}") }) { server in
            let transport = CurlTransport(maxConnectionsPerHost: 4)
            let outcomes = await withTaskGroup(of: String.self) { group in
                var tasks: [Task<HTTPResponse, any Error>] = []
                for _ in 0..<200 {
                    tasks.append(Task { try await transport.send(HTTPRequest(url: server.baseURL)) })
                }
                for (index, task) in tasks.enumerated() {
                    for _ in 0..<(index % 7) { await Task.yield() }
                    if index.isMultiple(of: 2) { task.cancel() }
                    group.addTask {
                        switch await task.result {
                        case .success(let response): response.status == 200 ? "ok" : "status"
                        case .failure(is CancellationError): "cancelled"
                        case .failure(let error): "error: \(error)"
                        }
                    }
                }
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(outcomes.count == 200)
            #expect(outcomes.allSatisfy { $0 == "ok" || $0 == "cancelled" })
            #expect(outcomes.filter { $0 == "ok" }.count >= 100)
        }
    }

    @Test func largeBodiesArriveIntact() async throws {
        // 8 MiB of numbered blocks, so a lost, repeated or reordered piece shows.
        var blocks = Data(capacity: 8 << 20)
        let block = Data((0..<252).map { UInt8($0) })
        for index in 0..<((8 << 20) / 256) {
            withUnsafeBytes(of: UInt32(index).bigEndian) { blocks.append(contentsOf: $0) }
            blocks.append(block)
        }
        let large = blocks
        try await withFakeServer({ request in
            FakeResponse(body: request.method == "POST" ? request.body : large)
        }) { server in
            let transport = CurlTransport()

            let download = try await transport.send(HTTPRequest(url: server.baseURL.appending(path: "/cover")))
            #expect(download.status == 200)
            #expect(download.body == large)

            let upload = large.prefix(5 << 20)
            let echo = try await transport.send(HTTPRequest(method: "POST", url: server.baseURL.appending(path: "/echo"), body: upload))
            #expect(echo.body == upload)
        }
    }

    @Test func responsesBeyondTheCapFail() async throws {
        try await withFakeServer({ request in
            FakeResponse(body: Data(repeating: 7, count: request.path == "/exact" ? 1000 : 10_000))
        }) { server in
            let transport = CurlTransport()

            let exact = try await transport.send(HTTPRequest(url: server.baseURL.appending(path: "/exact"), maxResponseBytes: 1000))
            #expect(exact.body.count == 1000)

            let error = await #expect(throws: TransportError.self) {
                try await transport.send(HTTPRequest(url: server.baseURL.appending(path: Self.secretPath), maxResponseBytes: 1000))
            }
            #expect(error?.description == "response too large")
            #expect(error?.requestMayHaveBeenSent == true)
        }
    }

    @Test func responsesBeyondTheCapFailWithoutContentLength() async throws {
        // Delimited by the end of the connection, so only the write callback can count.
        let head = Data("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n".utf8)
        let server = try RawHTTPServer.start { _ in .bytes(head + Data(repeating: 1, count: 100_000), close: true) }
        defer { server.stop() }
        let transport = CurlTransport()

        let error = await #expect(throws: TransportError.self) {
            try await transport.send(HTTPRequest(url: server.baseURL.appending(path: Self.secretPath), maxResponseBytes: 50_000))
        }
        #expect(error?.description == "response too large")
        let whole = try await transport.send(HTTPRequest(url: server.baseURL, maxResponseBytes: 100_000))
        #expect(whole.body.count == 100_000)
    }

    @Test func connectionClosedMidResponse() async throws {
        let partial = Data("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n{\"ok\":true,".utf8)
        let server = try RawHTTPServer.start { _ in .bytes(partial, close: true) }
        defer { server.stop() }
        let transport = CurlTransport()

        let error = await #expect(throws: TransportError.self) {
            try await transport.send(HTTPRequest(method: "POST", url: server.baseURL.appending(path: Self.secretPath), body: Data("{}".utf8)))
        }
        #expect(error?.requestMayHaveBeenSent == true)
        #expect(error?.description == "connection closed mid-response")
    }

    @Test func connectionClosedWithoutAResponse() async throws {
        let server = try RawHTTPServer.start { _ in .bytes(Data(), close: true) }
        defer { server.stop() }
        let transport = CurlTransport()

        let error = await #expect(throws: TransportError.self) {
            try await transport.send(HTTPRequest(method: "POST", url: server.baseURL.appending(path: Self.secretPath), body: Data("{}".utf8)))
        }
        #expect(error?.requestMayHaveBeenSent == true)
        #expect(error?.description == "connection closed without a response")
    }

    @Test func refusedConnectionWasNeverSent() async throws {
        let refusing = try RefusingPort()
        let transport = CurlTransport()

        let error = await #expect(throws: TransportError.self) {
            try await transport.send(HTTPRequest(method: "POST", url: refusing.baseURL.appending(path: Self.secretPath), body: Data("{}".utf8)))
        }
        #expect(error?.requestMayHaveBeenSent == false)
        #expect(error?.description == "could not connect to host")
    }

    @Test func manyRequestsFinishWhileALongPollIsHeld() async throws {
        let (pollArrived, pollArrivedSink) = AsyncStream<Void>.makeStream()
        let (release, releaseSink) = AsyncStream<Void>.makeStream()
        try await withFakeServer({ request in
            guard request.path == "/getUpdates" else { return .json(#"{"n":"\#(request.path)"}"#) }
            pollArrivedSink.yield()
            for await _ in release {}
            return .json(#"{"updates":[]}"#)
        }) { server in
            defer { releaseSink.finish() }  // lets the server stop even if this test fails early
            let transport = CurlTransport()
            let pollFinished = Mutex(false)
            let poll = Task {
                defer { pollFinished.withLock { $0 = true } }
                return try await transport.send(HTTPRequest(url: server.baseURL.appending(path: "/getUpdates"), timeout: .seconds(50)))
            }
            var arrivals = pollArrived.makeAsyncIterator()
            await arrivals.next()

            let bodies = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for index in 0..<50 {
                    group.addTask {
                        let response = try await transport.send(HTTPRequest(
                            method: "POST", url: server.baseURL.appending(path: "/r\(index)"), body: Data("{}".utf8)
                        ))
                        return (response.status, String(decoding: response.body, as: UTF8.self))
                    }
                }
                return try await group.reduce(into: [String]()) { bodies, answer in
                    #expect(answer.0 == 200)
                    bodies.append(answer.1)
                }
            }
            #expect(Set(bodies) == Set((0..<50).map { #"{"n":"/r\#($0)"}"# }))
            #expect(pollFinished.withLock { $0 } == false)

            releaseSink.finish()
            let answer = try await poll.value
            #expect(String(decoding: answer.body, as: UTF8.self) == #"{"updates":[]}"#)
        }
    }

    /// A handle keeps its own options from request to request: nothing one request set (a
    /// body, a method, a header) may reach the next.
    @Test func aRequestInheritsNothingFromTheOneBefore() async throws {
        let seen = Mutex<[RawHTTPRequest]>([])
        let server = try RawHTTPServer.start { request in
            seen.withLock { $0.append(request) }
            return request.method == "HEAD" ? .bytes(Data("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\n".utf8), close: false) : .ok("done")
        }
        defer { server.stop() }
        let transport = CurlTransport()
        let url = { (path: String) in server.baseURL.appending(path: path) }

        let requests = [
            HTTPRequest(method: "POST", url: url("/post"), headers: ["X-Attempt": "1"], body: Data(#"{"a":1}"#.utf8)),
            HTTPRequest(url: url("/get")),
            HTTPRequest(method: "HEAD", url: url("/head")),
            HTTPRequest(url: url("/get")),
            HTTPRequest(method: "DELETE", url: url("/delete")),
            HTTPRequest(url: url("/get")),
        ]
        for request in requests {
            #expect(try await transport.send(request).status == 200)
        }
        let received = seen.withLock { $0 }
        #expect(received.map(\.method) == ["POST", "GET", "HEAD", "GET", "DELETE", "GET"])
        #expect(received.map(\.body) == [Data(#"{"a":1}"#.utf8)] + Array(repeating: Data(), count: 5))
        #expect(received.map { $0.headers["x-attempt"] } == ["1", nil, nil, nil, nil, nil])
        #expect(received.dropFirst().allSatisfy { $0.headers["content-length"] == nil && $0.headers["content-type"] == nil })
        #expect(server.connectionsAccepted == 1)
    }

    @Test func redirectsAreFollowedOnlyWhenAsked() async throws {
        let server = try RawHTTPServer.start { request in
            switch request.path {
            case "/old": .ok("moved", status: 302, headers: ["Location": "/new"])
            case "/loop": .ok("again", status: 302, headers: ["Location": "/loop"])
            default: .ok("cover")
            }
        }
        defer { server.stop() }
        let transport = CurlTransport()

        let kept = try await transport.send(HTTPRequest(url: server.baseURL.appending(path: "/old")))
        #expect(kept.status == 302)
        let followed = try await transport.send(HTTPRequest(url: server.baseURL.appending(path: "/old"), followRedirects: true))
        #expect(followed.status == 200)
        #expect(followed.body == Data("cover".utf8))
        let error = await #expect(throws: TransportError.self) {
            try await transport.send(HTTPRequest(url: server.baseURL.appending(path: "/loop"), followRedirects: true))
        }
        #expect(error?.description == "too many redirects")
    }

    @Test func errorDescriptionsNeverContainTheURL() async throws {
        let silent = try RawHTTPServer.start { _ in .silence }
        let cut = try RawHTTPServer.start { _ in .bytes(Data("HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\nab".utf8), close: true) }
        let garbage = try RawHTTPServer.start { _ in .bytes(Data("NOT HTTP AT ALL\r\n\r\n".utf8), close: true) }
        let big = try RawHTTPServer.start { _ in .ok(String(repeating: "x", count: 5000)) }
        defer { [silent, cut, garbage, big].forEach { $0.stop() } }
        let refusing = try RefusingPort()
        let transport = CurlTransport()

        let requests = [
            HTTPRequest(url: silent.baseURL.appending(path: Self.secretPath), timeout: .milliseconds(100)),
            HTTPRequest(url: cut.baseURL.appending(path: Self.secretPath)),
            HTTPRequest(url: garbage.baseURL.appending(path: Self.secretPath)),
            HTTPRequest(url: big.baseURL.appending(path: Self.secretPath), maxResponseBytes: 100),
            HTTPRequest(url: refusing.baseURL.appending(path: Self.secretPath)),
            HTTPRequest(url: URL(string: "ftp://127.0.0.1\(Self.secretPath)")!),
            HTTPRequest(url: silent.baseURL.appending(path: Self.secretPath), headers: ["X-Bad": "a\r\nInjected: 1"]),
        ]
        for request in requests {
            let error = await #expect(throws: TransportError.self) { try await transport.send(request) }
            let text = "\(error.map { String(describing: $0) } ?? "")|\(error.map { String(reflecting: $0) } ?? "")"
            #expect(!text.contains("SECRET"), "\(text)")
            #expect(!text.contains("bot123456"), "\(text)")
            #expect(!text.contains("127.0.0.1"), "\(text)")
        }
    }
}
