import Foundation

extension TimeZone {
    /// The zone an IANA name stands for, or nil for a name that is not one.
    ///
    /// UTC comes without ICU: `TimeZone(identifier: "UTC")` loads ICU's zone data, a few MiB
    /// of resident memory, only to arrive at what `.gmt` is (its identifier is "GMT" either
    /// way). The default configuration uses UTC, so a bot that never meets another zone
    /// never loads that data.
    public static func named(_ name: String) -> TimeZone? {
        switch name {
        case "UTC", "GMT", "Etc/UTC", "Etc/GMT": .gmt
        default: TimeZone(identifier: name)
        }
    }

    /// The name to show for this zone where nobody gave one: its identifier, but UTC for
    /// `.gmt`, which `named` makes of UTC, and which Foundation would show as "GMT". Where
    /// the name someone wrote is known, show that instead (`PostingTime.zoneName`).
    public var displayName: String {
        identifier == "GMT" ? "UTC" : identifier
    }
}
