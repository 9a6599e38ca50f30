import Foundation

/// What the database holds: each table's rows, and the files' size.
public struct StoreSizes: Sendable {
    /// Each table's name and row count, by name.
    public var tables: [(name: String, rows: Int)]
    /// The bytes of answers in the listening cache, which `LISTENING_CACHE_MB` bounds; nil
    /// for a database not yet migrated to keep that count.
    public var listeningCacheBytes: Int?
    /// The database file and its write-ahead log, in bytes; with PostgreSQL, the database's size.
    public var fileBytes: Int64
    /// Whether the database is PostgreSQL's rather than a SQLite file.
    public var isShared = false

    /// One line each: the size, then every table's rows.
    public var lines: [String] {
        var lines = [isShared ? "Database: \(Self.megabytes(fileBytes)) in PostgreSQL." : "Database: \(Self.megabytes(fileBytes)) on disk, with its log."]
        for (name, rows) in tables {
            let cache = name.lowercased() == "lastfmcache" ? listeningCacheBytes.map { ", \(Self.megabytes(Int64($0))) of listening data" } ?? "" : ""
            lines.append("  \(name): \(rows) \(rows == 1 ? "row" : "rows")\(cache)")
        }
        return lines
    }

    private static func megabytes(_ bytes: Int64) -> String {
        String(format: "%.1f MB", Double(bytes) / Double(1 << 20))
    }
}

extension BotStore {
    /// Counts every table's rows, and measures the files. Reads only: works on a database
    /// opened without migrating, whatever version wrote it.
    public func sizes() throws -> StoreSizes {
        let (tables, cacheBytes) = try readHere { session in
            let names = try session.tableNames()
            let tables = try names.map { name in
                let quoted = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                return (name: name, rows: try session.rows("SELECT count(*) FROM \(quoted)", [], keepPrepared: false).first?.get(0) ?? 0)
            }
            let cacheBytes: Int? = try session.tableExists("lastfmCacheSize") ? session.value("SELECT bytes FROM lastfmCacheSize") : nil
            return (tables, cacheBytes)
        }
        return StoreSizes(tables: tables, listeningCacheBytes: cacheBytes, fileBytes: try engine.storageBytes(), isShared: engine.servesReplicas)
    }
}
