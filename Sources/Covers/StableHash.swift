/// FNV-1a, 64-bit: a hash that is the same in every process and on every machine.
///
/// Swift's `Hasher` is seeded randomly per process, so colours derived from it would change
/// at every restart; placeholders and demo covers must not.
struct StableHash {
    private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325

    init() {}

    init(_ strings: String...) {
        for string in strings {
            combine(string)
        }
    }

    /// Hashes `string`'s UTF-8 bytes, then a 0xFF byte (never in UTF-8) as a separator,
    /// so ("ab", "c") and ("a", "bc") differ.
    mutating func combine(_ string: String) {
        combine(bytes: string.utf8)
        combine(bytes: CollectionOfOne(0xFF))
    }

    /// Plain FNV-1a over `bytes`.
    mutating func combine(bytes: some Sequence<UInt8>) {
        for byte in bytes {
            value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
    }
}

/// A small deterministic generator (SplitMix64) seeded from a `StableHash`, for picking
/// several shapes and colours from one hash.
struct StableRandom {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `range`, near-uniformly (the modulo bias is negligible for small ranges).
    mutating func next(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    mutating func unit() -> Double {
        Double(next() >> 11) / Double(1 << 53)
    }
}
