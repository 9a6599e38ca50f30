import Foundation

extension ProcFS {
    /// The CPU time (user + system) of `pid` and of all its children, those alive and those
    /// that ended and were waited for: a server that forks a process per connection, such as
    /// PostgreSQL, does its work in children, some of which end while it is measured.
    ///
    /// A child that ends between the two reads (its `/proc` entry gone, its time not yet in
    /// the parent's) is missed, one that is waited for between them may count twice: a few
    /// ticks at worst, against the seconds a measured burst takes.
    static func treeCPUTime(pid: Int32) -> Duration? {
        let children = childCPUTimes(of: pid)
        // utime, stime, cutime and cstime: fields 14 to 17.
        guard let own = statFields(pid: pid), own.count > 14,
              let user = Int(own[11]), let system = Int(own[12]), let childrenUser = Int(own[13]), let childrenSystem = Int(own[14])
        else { return nil }
        return .milliseconds((user + system + childrenUser + childrenSystem) * 1000) / ticksPerSecond + children
    }

    /// The summed CPU time of the live processes whose parent is `pid`.
    private static func childCPUTimes(of pid: Int32) -> Duration {
        // The parent's pid is field 4.
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        var sum = Duration.zero
        for entry in entries {
            guard let child = Int32(entry), let fields = statFields(pid: child), fields.count > 12, fields[1] == "\(pid)",
                  let user = Int(fields[11]), let system = Int(fields[12])
            else { continue }
            sum += .milliseconds((user + system) * 1000) / ticksPerSecond
        }
        return sum
    }
}
