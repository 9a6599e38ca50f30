import Foundation
import Logging
import OrderedCollections

/// Downloaded covers on disk, next to the database, within a size budget: the least recently
/// used file goes first. One file per cover URL, named by a stable hash of the URL.
///
/// The index of files and sizes is read from the directory on first use (oldest
/// modification time first) and kept in memory; a hit refreshes the file's modification
/// time, so the order survives a restart.
public actor CoverDiskCache {
    public nonisolated let directory: URL
    /// The most bytes the files may take together.
    public nonisolated let capacity: Int
    private let logger: Logger
    /// File name → size, least recently used first; read from the directory on first use.
    private var entries: OrderedDictionary<String, Int> = [:]
    private var loaded = false
    private var total = 0

    public init(directory: URL, capacityBytes: Int, logger: Logger = Logger(label: "covers")) {
        self.directory = directory
        self.capacity = max(0, capacityBytes)
        self.logger = logger
    }

    /// The cover stored for `url`, if any.
    public func data(for url: URL) -> Data? {
        loadIfNeeded()
        let name = Self.fileName(for: url)
        guard entries[name] != nil else { return nil }
        let file = directory.appendingPathComponent(name)
        guard let data = try? Data(contentsOf: file) else {
            // Removed behind our back: forget it.
            drop(name)
            return nil
        }
        entries.removeValue(forKey: name)
        entries[name] = data.count
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: file.path)
        return data
    }

    /// Stores a cover, then removes the least recently used files beyond the capacity.
    public func store(_ data: Data, for url: URL) {
        guard data.count <= capacity else { return }
        loadIfNeeded()
        let name = Self.fileName(for: url)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try data.write(to: directory.appendingPathComponent(name), options: .atomic)
        } catch {
            logger.warning("could not store a cover on disk", metadata: ["directory": "\(directory.path)", "error": "\(error)"])
            return
        }
        drop(name)
        entries[name] = data.count
        total += data.count
        while total > capacity, let oldest = entries.keys.first {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(oldest))
            drop(oldest)
        }
    }

    /// The bytes the stored covers take.
    public var storedBytes: Int {
        loadIfNeeded()
        return total
    }

    private func drop(_ name: String) {
        if let size = entries.removeValue(forKey: name) { total -= size }
    }

    private func loadIfNeeded() {
        guard !loaded else { return }
        loaded = true
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey, .isRegularFileKey]
        let files = (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys)) ?? []
        let found: [(name: String, size: Int, used: Date)] = files.compactMap { file in
            guard let values = try? file.resourceValues(forKeys: Set(keys)), values.isRegularFile == true,
                  Self.isCoverFileName(file.lastPathComponent)
            else { return nil }
            return (file.lastPathComponent, values.fileSize ?? 0, values.contentModificationDate ?? .distantPast)
        }
        for file in found.sorted(by: { $0.used < $1.used }) { entries[file.name] = file.size }
        total = entries.values.reduce(0, +)
    }

    /// 32 hex digits: the same URL gives the same name in every process.
    static func fileName(for url: URL) -> String {
        ButtonData.key(for: url.absoluteString)
    }

    /// Only files this cache wrote are counted or evicted; anything else in the folder is left alone.
    static func isCoverFileName(_ name: String) -> Bool {
        name.utf8.count == 32 && name.unicodeScalars.allSatisfy { $0.properties.isASCIIHexDigit }
    }
}
