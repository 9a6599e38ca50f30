import Foundation
import GRDB

/// What the database holds: each table's rows, and the files' size.
public struct StoreSizes: Sendable {
    /// Each table's name and row count, by name.
    public var tables: [(name: String, rows: Int)]
    /// The bytes of answers in the listening cache, which `LISTENING_CACHE_MB` bounds; nil
    /// for a database not yet migrated to keep that count.
    public var listeningCacheBytes: Int?
    /// The database file and its write-ahead log, in bytes.
    public var fileBytes: Int64

    /// One line each: the size, then every table's rows.
    public var lines: [String] {
        var lines = ["Database: \(Self.megabytes(fileBytes)) on disk, with its log."]
        for (name, rows) in tables {
            let cache = name == "lastfmCache" ? listeningCacheBytes.map { ", \(Self.megabytes(Int64($0))) of listening data" } ?? "" : ""
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
        let (tables, cacheBytes) = try readHere { db in
            let names = try String.fetchAll(db, sql: """
                SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'grdb_migrations' ORDER BY name
                """)
            let tables = try names.map { name in
                (name: name, rows: try Int.fetchOne(db, sql: "SELECT count(*) FROM \(name.quotedDatabaseIdentifier)") ?? 0)
            }
            let cacheBytes = names.contains("lastfmCacheSize") ? try Int.fetchOne(db, sql: "SELECT bytes FROM lastfmCacheSize") : nil
            return (tables, cacheBytes)
        }
        let path = database.path
        let fileBytes = [path, path + "-wal"].reduce(Int64(0)) { total, file in
            total + ((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.int64Value ?? 0)
        }
        return StoreSizes(tables: tables, listeningCacheBytes: cacheBytes, fileBytes: fileBytes)
    }
}
