import Foundation
import Networking
import Synchronization

/// An in-memory `HTTPTransport` that answers from a script and records what it was asked.
public final class ScriptedTransport: HTTPTransport {
    public enum Step: Sendable {
        case respond(status: Int, body: String)
        case fail(String)
    }

    private let state: Mutex<(steps: [Step], requests: [HTTPRequest])>
    /// Answer used once the script runs out.
    private let fallback: Step

    public init(_ steps: [Step], fallback: Step = .fail("script exhausted")) {
        state = Mutex((steps, []))
        self.fallback = fallback
    }

    public var requests: [HTTPRequest] {
        state.withLock { $0.requests }
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let step = state.withLock { state -> Step in
            state.requests.append(request)
            return state.steps.isEmpty ? fallback : state.steps.removeFirst()
        }
        switch step {
        case let .respond(status, body):
            return HTTPResponse(status: status, body: Data(body.utf8))
        case .fail(let message):
            throw TransportError(message)
        }
    }
}
