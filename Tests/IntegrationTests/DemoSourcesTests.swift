import Clocks
import Foundation
import Networking
import Testing
import Throwback
import TestLogging

/// The offline demo knows its listeners on every service, as the README's examples write them.
@Suite(.capturingLogs, .timeLimit(.minutes(2))) struct DemoSourcesTests {
    static let now = BotHarness.now

    static func session() throws -> BotAssembly.TerminalSession {
        let assembly = BotAssembly(
            configuration: BotConfiguration(), lastFMTransport: DemoLastFMTransport(now: { now }), lastFMKey: Secret("demo"),
            options: .init(clock: ImmediateClock(), now: { now }, unknownUserHint: { DemoListeningData().unknownUserHint(in: $0) })
        )
        return assembly.terminal(store: try BotStore.inMemory())
    }

    static func reply(_ text: String, _ session: BotAssembly.TerminalSession) async -> String {
        let context = CommandInvocation(chatID: 5, isPrivateChat: true, userID: 5)
        return await session.commands.router.reply(to: text, context: context)?.rendered(with: .plain) ?? ""
    }

    /// The chart's albums with their plays, after the heading that names the user; albums of
    /// as many plays may come in another order.
    static func albums(_ text: String) -> [Substring] {
        text.split(separator: "\n").dropFirst().map { $0.drop { $0 != " " } }.sorted()
    }

    @Test func everyDemoListenerIsOnListenBrainzAndLibreFMWithTheSameListening() async throws {
        let session = try Self.session()
        for name in ["alice", "bob", "carol", "dave"] {
            let lastFM = await Self.reply("throwback \(name) 1", session)
            #expect(lastFM.contains("1. "), "\(lastFM)")
            for qualified in ["lb:\(name)", "librefm:\(name)"] {
                let other = await Self.reply("throwback \(qualified) 1", session)
                #expect(other.hasPrefix("\(qualified) · week of "), "\(other)")
                #expect(Self.albums(other) == Self.albums(lastFM), "\(other)\n\(lastFM)")
            }
        }
        #expect(await Self.reply("throwback lb:erin 1", session).hasPrefix("lb:erin · week of "))
        #expect(await Self.reply("track librefm:CAROL", session).hasPrefix("Now tracking librefm:carol."))
        let unknown = await Self.reply("throwback librefm:erin 1", session)
        #expect(unknown == "No Libre.fm user is called “erin”. " + DemoListeningData().unknownUserHint)
        #expect(unknown.contains("lb:bob") && unknown.contains("librefm:carol") && unknown.contains("lb:erin"))
    }

    @Test func theDemoWeeklyPostShowsALibreFMListenersAlbums() async throws {
        let session = try Self.session()
        for name in ["carol", "librefm:carol", "lb:bob"] { _ = await Self.reply("track \(name)", session) }
        let post = await Self.reply("postnow", session)
        #expect(!post.contains("unavailable"), "\(post)")
        let sections = post.components(separatedBy: "\n\n")
        let carol = try #require(sections.first { $0.hasPrefix("carol") }), libreFM = try #require(sections.first { $0.hasPrefix("librefm:carol") })
        #expect(carol.contains("1. "), "\(post)")
        #expect(Self.albums(libreFM) == Self.albums(carol), "\(post)")
        #expect(sections.contains { $0.hasPrefix("lb:bob") && $0.contains("1. ") }, "\(post)")
    }

    @Test func theDemosUsersAreEveryServicesAndNamedInTheHelp() {
        let data = DemoListeningData()
        #expect(Set(["alice", "lb:bob", "librefm:carol", "lb:erin", "librefm:dave"]).isSubset(of: data.userNames))
        #expect(!data.userNames.contains("librefm:erin"))
    }
}
