import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A request as `RawHTTPServer` read it. Header names are lowercased.
public struct RawHTTPRequest: Sendable {
    public var method: String
    public var path: String
    public var headers: [String: String]
    public var body: Data
}

/// What `RawHTTPServer` does with a request.
public enum RawHTTPReply: Sendable {
    /// Writes exactly these bytes, then waits for the next request or closes the connection.
    case bytes(Data, close: Bool)
    /// Never answers; holds the connection until the client or `stop()` closes it.
    case silence

    /// A complete keep-alive response with a Content-Length.
    public static func ok(_ body: String, status: Int = 200, headers: [String: String] = [:]) -> RawHTTPReply {
        var head = "HTTP/1.1 \(status) Status\r\nContent-Length: \(body.utf8.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        return .bytes(Data((head + "\r\n" + body).utf8), close: false)
    }
}

/// Something the raw server saw, in order, for tests to wait on instead of sleeping.
public enum RawHTTPServerEvent: Sendable, Equatable {
    case request(path: String)
    /// The client closed a connection (it did not answer, or it was waiting for more).
    case closedByClient
}

/// An HTTP/1.1 server on plain sockets at 127.0.0.1 and an ephemeral port, for behaviour
/// a well-behaved server framework will not produce: never answering, closing mid-response,
/// malformed or close-delimited responses, and counting connections.
///
/// One thread accepts, one thread serves each connection; fine for tests, nothing else.
public final class RawHTTPServer: Sendable {
    public let port: Int
    public let events: AsyncStream<RawHTTPServerEvent>
    private let eventSink: AsyncStream<RawHTTPServerEvent>.Continuation
    private let listener: Int32
    private let reply: @Sendable (RawHTTPRequest) -> RawHTTPReply
    /// Open connection sockets, closed and removed under the lock so `stop` never shuts
    /// down a descriptor number that was reused meanwhile.
    private let state = Mutex<(connections: Set<Int32>, stopped: Bool)>(([], false))
    private let accepted = Atomic<Int>(0)

    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// How many connections the server has accepted so far.
    public var connectionsAccepted: Int { accepted.load(ordering: .relaxed) }

    /// Starts listening; the server accepts connections once this returns.
    public static func start(reply: @escaping @Sendable (RawHTTPRequest) -> RawHTTPReply) throws -> RawHTTPServer {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw FakeServerError.didNotStart }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        guard let port = bindLoopback(fd), listen(fd, 128) == 0 else {
            close(fd)
            throw FakeServerError.didNotStart
        }
        let server = RawHTTPServer(port: port, listener: fd, reply: reply)
        let thread = Thread { server.acceptLoop() }
        thread.name = "RawHTTPServer.accept"
        thread.start()
        return server
    }

    private init(port: Int, listener: Int32, reply: @escaping @Sendable (RawHTTPRequest) -> RawHTTPReply) {
        self.port = port
        self.listener = listener
        self.reply = reply
        (events, eventSink) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// Stops accepting and closes every connection.
    public func stop() {
        state.withLock { state in
            guard !state.stopped else { return }
            state.stopped = true
            shutdown(listener, Int32(SHUT_RDWR))
            for fd in state.connections { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    deinit {
        stop()
        eventSink.finish()
    }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                break
            }
            let admitted = state.withLock { state in
                guard !state.stopped else { return false }
                state.connections.insert(fd)
                return true
            }
            guard admitted else {
                close(fd)
                break
            }
            accepted.add(1, ordering: .relaxed)
            let thread = Thread { self.serve(fd) }
            thread.name = "RawHTTPServer.connection"
            thread.start()
        }
        close(listener)
    }

    private func serve(_ fd: Int32) {
        var buffer = [UInt8]()
        var clientClosed = false
        loop: while let request = Self.readRequest(fd, &buffer, clientClosed: &clientClosed) {
            eventSink.yield(.request(path: request.path))
            switch reply(request) {
            case .bytes(let data, let closeAfter):
                guard Self.writeAll(fd, data), !closeAfter else { break loop }
            case .silence:
                var scratch = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = recv(fd, &scratch, scratch.count, 0)
                    if count == 0 { clientClosed = true }
                    if count <= 0 { break }
                }
                break loop
            }
        }
        let stopped = state.withLock { state in
            state.connections.remove(fd)
            close(fd)
            return state.stopped
        }
        if clientClosed, !stopped {
            eventSink.yield(.closedByClient)
        }
    }

    /// Reads one request (head plus a Content-Length body), keeping bytes that follow it.
    private static func readRequest(_ fd: Int32, _ buffer: inout [UInt8], clientClosed: inout Bool) -> RawHTTPRequest? {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while true {
            if headEnd == nil, let range = firstRange(of: separator, in: buffer) {
                headEnd = range
            }
            if let headEnd {
                let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
                var lines = head.components(separatedBy: "\r\n")
                let requestLine = lines.removeFirst().split(separator: " ")
                var headers: [String: String] = [:]
                for line in lines {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                let length = Int(headers["content-length"] ?? "0") ?? 0
                let bodyStart = headEnd + separator.count
                if buffer.count >= bodyStart + length {
                    let body = Data(buffer[bodyStart..<(bodyStart + length)])
                    buffer.removeFirst(bodyStart + length)
                    return RawHTTPRequest(
                        method: requestLine.first.map(String.init) ?? "",
                        path: requestLine.count > 1 ? String(requestLine[1]) : "",
                        headers: headers,
                        body: body
                    )
                }
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = recv(fd, &chunk, chunk.count, 0)
            if count == 0 { clientClosed = true }
            if count <= 0 { return nil }
            buffer.append(contentsOf: chunk[..<count])
        }
    }

    private static func firstRange(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<(start + needle.count)].elementsEqual(needle) { return start }
        }
        return nil
    }

    private static func writeAll(_ fd: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                if written < 0, errno == EINTR { continue }
                if written <= 0 { return false }
                offset += written
            }
            return true
        }
    }

    /// Binds `fd` to 127.0.0.1 at a port the system picks, and returns that port.
    static func bindLoopback(_ fd: Int32) -> Int? {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { return nil }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { return nil }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// A loopback port with a socket bound to it but not listening, so connecting to it is
/// refused at once, and no other test can take the port while this lives.
public final class RefusingPort: Sendable {
    public let port: Int
    private let fd: Int32

    public init() throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0, let port = RawHTTPServer.bindLoopback(fd) else { throw FakeServerError.didNotStart }
        self.port = port
    }

    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    deinit {
        close(fd)
    }
}
