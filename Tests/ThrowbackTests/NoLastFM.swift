import LastFM
import Networking

/// A Last.fm client for tests that must not reach Last.fm.
struct NoLastFM: LastFMClient {
    func send<Response>(_ call: LastFMCall<Response>) async throws -> Response {
        throw ListeningError("Last.fm", .transport("no Last.fm in this test"))
    }
}
