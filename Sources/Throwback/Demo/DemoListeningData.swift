import WeeklyCharts

import Foundation

/// Deterministic sample listening histories for a few demo users, computed week by week
/// from a seeded generator, so the demo works offline and looks the same every run. Each of
/// them scrobbles to Last.fm, ListenBrainz and Libre.fm alike, as many people's players do,
/// so every name an example writes (`bob`, `lb:bob`, `librefm:carol`) has a history.
public struct DemoListeningData: Sendable {
    struct Listener: Sendable {
        var name: String
        var realName: String
        var since: Date
        var favourites: [DemoCatalogue.Album]
        var friends: [String]
    }

    /// Users of all three services.
    let listeners: [Listener]
    /// Users of ListenBrainz only.
    let listenBrainzOnly: [Listener]

    public init() {
        listeners = [
            Listener(name: "alice", realName: "Alice", since: Self.date(2011, 3, 14),
                     favourites: DemoCatalogue.indie + DemoCatalogue.electronic, friends: ["bob", "carol", "dave"]),
            Listener(name: "bob", realName: "Bob", since: Self.date(2015, 9, 2),
                     favourites: DemoCatalogue.hipHopAndSoul + DemoCatalogue.jazz, friends: ["alice", "carol"]),
            Listener(name: "carol", realName: "Carol", since: Self.date(2018, 1, 20),
                     favourites: DemoCatalogue.rockAndClassics + DemoCatalogue.indie, friends: ["alice", "bob"]),
            Listener(name: "dave", realName: "Dave", since: Self.date(2024, 6, 1),
                     favourites: DemoCatalogue.electronic + DemoCatalogue.jazz, friends: ["alice"]),
        ]
        listenBrainzOnly = [
            Listener(name: "erin", realName: "Erin", since: Self.date(2016, 5, 8),
                     favourites: DemoCatalogue.electronic + DemoCatalogue.rockAndClassics, friends: []),
        ]
    }

    /// Every account of the demo, as names are written: bare for Last.fm, `lb:` for
    /// ListenBrainz and `librefm:` for Libre.fm.
    public var userNames: [String] {
        let names = listeners.map(\.name)
        return names + (names + listenBrainzOnly.map(\.name)).map { "lb:\($0)" } + names.map { "librefm:\($0)" }
    }

    /// Who the demo knows, in a sentence: what is added to "no such user".
    public var unknownUserHint: String { unknownUserHint(in: .english) }

    /// The same in `language`.
    public func unknownUserHint(in language: Language) -> String {
        let names = listeners.map(\.name)
        let example = (lb: names.dropFirst().first ?? names.first ?? "", libreFM: names.dropFirst(2).first ?? names.first ?? "")
        let all = language.list(names)
        guard !listenBrainzOnly.isEmpty else { return language.text(.demoKnows, all, example.lb, example.libreFM) }
        return language.text(.demoKnowsAlso, all, example.lb, example.libreFM, language.list(listenBrainzOnly.map { "lb:\($0.name)" }))
    }

    /// A user of Last.fm or Libre.fm, whatever the case of `name`.
    func listener(_ name: String) -> Listener? {
        listeners.first { $0.name.lowercased() == name.lowercased() }
    }

    /// A user of ListenBrainz, whatever the case of `name`.
    func listenBrainzListener(_ name: String) -> Listener? {
        listener(name) ?? listenBrainzOnly.first { $0.name.lowercased() == name.lowercased() }
    }

    /// A listener's plays before `before` (and after `after`, if given), newest first, at most
    /// `count`: each week's albums (as `albums(for:weekStart:)` picks them) spread as single
    /// listens over the week, never at its first or last hour.
    func listens(for listener: Listener, before: Date, after: Date? = nil, count: Int) -> [(at: Int, artist: String, album: String)] {
        var listens: [(at: Int, artist: String, album: String)] = []
        var week = LastFMWeek.start(of: before.addingTimeInterval(-1))
        let first = max(LastFMWeek.start(of: listener.since), after.map { LastFMWeek.start(of: $0) } ?? .distantPast)
        while listens.count < count && week >= first {
            let albums = albums(for: listener, weekStart: week)
            let plays = albums.flatMap { album in Array(repeating: album, count: album.playCount) }
            let step = plays.isEmpty ? 0 : (Int(LastFMWeek.length) - 7200) / plays.count
            let start = Int(week.timeIntervalSince1970) + 3600
            let inWeek = plays.enumerated().map { (at: start + $0.offset * step, artist: $0.element.artist, album: $0.element.name) }
            listens += inWeek.filter { listen in
                Double(listen.at) < before.timeIntervalSince1970 && (after.map { Double(listen.at) > $0.timeIntervalSince1970 } ?? true)
            }.reversed()
            week = week.addingTimeInterval(-LastFMWeek.length)
        }
        return Array(listens.prefix(count))
    }

    /// How many plays a listener has in all, until `now`.
    func playCount(of listener: Listener, now: Date) -> Int {
        let finished = chartList(for: listener, now: now).reduce(0) { total, week in
            total + albums(for: listener, weekStart: week.from).reduce(0) { $0 + $1.playCount }
        }
        return finished + listens(for: listener, before: now, after: LastFMWeek.start(of: now), count: .max).count
    }

    /// Every completed week from the listener's first scrobble until `now`.
    func chartList(for listener: Listener, now: Date) -> [WeeklyChartRange] {
        var ranges: [WeeklyChartRange] = []
        var start = LastFMWeek.start(of: listener.since)
        while start.addingTimeInterval(LastFMWeek.length) <= now {
            let end = start.addingTimeInterval(LastFMWeek.length)
            ranges.append(WeeklyChartRange(from: start, to: end))
            start = end
        }
        return ranges
    }

    /// The albums a listener played in the week starting at `weekStart`, most played first.
    func albums(for listener: Listener, weekStart: Date) -> [ChartAlbum] {
        guard weekStart >= LastFMWeek.start(of: listener.since) else { return [] }
        var random = SeededRandom(seed: "\(listener.name)|\(Int(weekStart.timeIntervalSince1970))")
        // Roughly one week in nine is silent: holidays, a broken scrobbler.
        if random.next(upTo: 9) == 0 { return [] }
        let count = random.next(upTo: 20) == 0 ? 1 : 3 + random.next(upTo: 12)
        var picked: [DemoCatalogue.Album] = []
        while picked.count < count {
            let pool = random.next(upTo: 10) < 7 ? listener.favourites : DemoCatalogue.all
            let album = pool[random.next(upTo: pool.count)]
            if !picked.contains(where: { $0.name == album.name && $0.artist == album.artist }) {
                picked.append(album)
            }
        }
        // A few heavy rotations and a long tail of single plays.
        let plays = picked.map { _ in
            let x = Double(random.next(upTo: 1000)) / 1000
            return max(1, Int(x * x * x * 60))
        }.sorted(by: >)
        return zip(picked, plays).enumerated().map { index, pair in
            ChartAlbum(artist: pair.0.artist, name: pair.0.name, playCount: pair.1, rank: index + 1)
        }
    }

    private static func date(_ year: Int, _ month: Int, _ day: Int) -> Date {
        UTCDateTime(year: Int64(year), month: month, day: day, secondsIntoDay: 12 * 3600).date
    }
}

/// SplitMix64 seeded from a string with FNV-1a: stable across runs and platforms,
/// unlike `Hasher`, which is seeded per process.
struct SeededRandom {
    private var state: UInt64

    init(seed: String) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in seed.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0100_0000_01b3
        }
        state = hash
    }

    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound`.
    mutating func next(upTo bound: Int) -> Int {
        Int(next() % UInt64(max(bound, 1)))
    }
}
