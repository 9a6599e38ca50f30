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
        // Most of smaps' lines are fields nobody here reads; only headers become strings.
        while getline(&line, &capacity, smaps) > 0, let line {
            if strncmp(line, "Rss:", 4) == 0 {
                current?.resident = strtol(line + 4, nil, 10) * 1024
            } else if strncmp(line, "Anonymous:", 10) == 0 {
                current?.anonymous = strtol(line + 10, nil, 10) * 1024
            } else if startsHeader(UInt8(bitPattern: line[0])), let mapping = Mapping(header: String(cString: line)) {
                released += current?.releaseIfUnchanged() ?? 0
                current = mapping
            }
        }
        released += current?.releaseIfUnchanged() ?? 0
        return released
    }

    /// Headers start with an address in lower-case hex; fields with a capitalized name.
    private static func startsHeader(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
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
            guard fields.count >= 5 else { return nil }
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
