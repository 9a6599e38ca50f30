import Foundation
import Networking

/// An HTTP transport that answers every request with the same status and body: the fuzz input.
public struct CannedTransport: HTTPTransport {
    public let response: HTTPResponse

    public init(status: Int, body: Data) {
        response = HTTPResponse(status: status, body: body)
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        response
    }

    /// The statuses the first input byte picks from (its value modulo 5): so a seed that starts
    /// with `A` is answered with 200, `B` 400, `C` 404, `D` 500, `E` 503.
    public static let statuses = [200, 400, 404, 500, 503]

    /// Splits an input into a status (first byte) and a body (the rest).
    public init(input data: UnsafePointer<UInt8>, size: Int) {
        let bytes = UnsafeBufferPointer(start: data, count: size)
        let status = bytes.first.map { Self.statuses[Int($0) % Self.statuses.count] } ?? 200
        self.init(status: status, body: Data(bytes.dropFirst()))
    }
}
