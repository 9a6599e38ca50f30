import Foundation
import ListenBrainz
import Testing

/// The shapes of a listens page that ListensDecodingTests does not show: each is read as it
/// always was, now that answers are read from the tape.
@Suite struct ListensLeniencyTests {
    @Test func wholeNumbersInAnyFormAndListensThatAreNoList() throws {
        let page = try ListensPage.decode(Data(("\u{FEFF}" + #"""
        {"payload": {"user_id": "bob", "oldest_listen_ts": "1500000000", "latest_listen_ts": 1.7e9, "listens": [
          null, [], {"listened_at": 1700000000.0, "track_metadata": {"artist_name": "Low", "mbid_mapping": {"caa_id": 5e0, "caa_release_mbid": ""}}},
          {"listened_at": 1700000001.5, "track_metadata": {"artist_name": "Half"}}
        ]}}
        """#).utf8))
        #expect(page.user == "bob")
        #expect(page.oldestListenTimestamp == nil)
        #expect(page.latestListenTimestamp == 1_700_000_000)
        #expect(page.listens == [Listen(listenedAt: 1_700_000_000, artist: "Low", release: nil, coverArtID: 5)])
        let noList = try ListensPage.decode(Data(#"{"payload": {"user_id": "bob", "listens": {"listened_at": 1700000000}}}"#.utf8))
        #expect(noList.listens.isEmpty)
        #expect(noList.user == "bob")
    }
}
