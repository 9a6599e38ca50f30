import Testing
@testable import Throwback

/// The SQL engines the store's tests run against: a test that takes one runs once for each.
/// Another engine joins them by a case here.
enum TestEngine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite

    var testDescription: String { rawValue }

    /// A new, empty store on this engine, migrated to the current schema.
    func makeStore() throws -> BotStore {
        switch self {
        case .sqlite: try BotStore.inMemory()
        }
    }
}
