#if canImport(Glibc)
import Glibc
#endif

/// Drops the process's resident pages of code and read-only data, so that only the ones it
/// runs afterwards come back.
///
/// Some phases run much code once: start-up (argument parsing, configuration, migrations,
/// the runtimes' initialization) and loading libgd with its forty libraries. That code is
/// scattered over the binary and the libraries, and the kernel maps 64 KiB around every
/// page a process faults in, so such a phase leaves many MiB of read-only file pages
/// resident that serving never touches again (a text-reply bot polled with about 25 MiB of
/// them, and needs about half). `MADV_DONTNEED` drops them from this process's page
/// tables; a page the bot runs afterwards comes back with a minor fault from the page
/// cache, where the pages stay. That is the state the kernel leaves a process in when it
/// reclaims such pages, which it may do at any time. Because the pages stay in the page
/// cache until the kernel needs the memory, this lowers the bot's resident set, not the
/// machine's memory use.
///
/// Only mappings that are private, not writable and hold no anonymous page are released:
/// their contents are exactly the file's, so dropping them cannot lose data. A mapping
/// that relocations wrote to (RELRO) holds anonymous pages and is left alone. (Code that
/// the loader relocates in place, `DT_TEXTREL`, would be an exception; shared libraries
/// on x86-64 and arm64 are built without it.)
public enum ReadOnlyPages {
    /// Releases the pages, and returns how many bytes were resident in the mappings released.
    @discardableResult
    public static func release() -> Int {
        guard let smaps = fopen("/proc/self/smaps", "r") else { return 0 }
        defer { fclose(smaps) }
        var released = 0
        var current: Mapping?
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, smaps) > 0, let line {
            let text = String(cString: line)
            if let mapping = Mapping(header: text) {
                released += current?.releaseIfUnchanged() ?? 0
                current = mapping
            } else if text.hasPrefix("Rss:") {
                current?.resident = kilobytes(text)
            } else if text.hasPrefix("Anonymous:") {
                current?.anonymous = kilobytes(text)
            }
        }
        released += current?.releaseIfUnchanged() ?? 0
        return released
    }

    /// The bytes of a `Field:   123 kB` line of smaps.
    private static func kilobytes(_ line: String) -> Int? {
        line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }.map { $0 * 1024 }
    }

    /// One mapping of smaps: its header line, then the fields that decide whether to release it.
    private struct Mapping {
        var start: UInt
        var end: UInt
        var releasable: Bool
        var resident: Int?
        var anonymous: Int?

        /// Parses a header line: `start-end perms offset dev inode [path]`; nil for a field line.
        init?(header: String) {
            let fields = header.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 5, fields[0].contains("-") else { return nil }
            let range = fields[0].split(separator: "-")
            guard range.count == 2, let start = UInt(range[0], radix: 16), let end = UInt(range[1], radix: 16), start < end,
                  let inode = UInt(fields[4])
            else { return nil }
            let permissions = Array(fields[1].utf8)
            guard permissions.count == 4 else { return nil }
            self.start = start
            self.end = end
            // Readable, not writable, private, and backed by a file (inode 0: vdso, stack, anonymous).
            releasable = permissions[0] == UInt8(ascii: "r") && permissions[1] == UInt8(ascii: "-")
                && permissions[3] == UInt8(ascii: "p") && inode != 0
        }

        /// Drops the mapping's pages if it is releasable and none is anonymous; returns the bytes it had resident.
        func releaseIfUnchanged() -> Int {
            guard releasable, anonymous == 0, let resident, resident > 0,
                  let address = UnsafeMutableRawPointer(bitPattern: start)
            else { return 0 }
            return madvise(address, Int(end - start), MADV_DONTNEED) == 0 ? resident : 0
        }
    }
}
