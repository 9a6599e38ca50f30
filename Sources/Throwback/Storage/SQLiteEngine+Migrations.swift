import Foundation
import GRDB
import Telegram

extension SQLiteEngine {
    /// Every schema change, in order. Append-only: never edit a registered migration, add a new one.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: rosters, links, chats, update journal, Last.fm cache") { db in
            try db.create(table: "chat") { t in
                t.primaryKey("id", .integer)
                t.column("minimumPlayCount", .integer).notNull().defaults(to: 1)
                t.column("weeklyEnabled", .boolean).notNull().defaults(to: true)
                t.column("schedule", .text)
                t.column("active", .boolean).notNull().defaults(to: true)
            }
            try db.create(table: "rosterEntry") { t in
                t.column("chatID", .integer).notNull()
                t.column("nameKey", .text).notNull()
                t.column("lastFMName", .text).notNull()
                t.column("addedAt", .datetime).notNull()
                t.primaryKey(["chatID", "nameKey"])
            }
            try db.create(table: "accountLink") { t in
                t.primaryKey("telegramUserID", .integer)
                t.column("lastFMName", .text).notNull()
            }
            try db.create(table: "updateOffset") { t in
                t.primaryKey("id", .integer)
                t.column("nextOffset", .integer).notNull()
            }
            try db.create(table: "inboxUpdate") { t in
                t.primaryKey("updateID", .integer)
                t.column("payload", .blob).notNull()
            }
            try db.create(table: "processedUpdate") { t in
                t.primaryKey("updateID", .integer)
                t.column("processedAt", .datetime).notNull()
            }
            try db.create(table: "lastfmCache") { t in
                t.primaryKey("key", .text)
                t.column("value", .blob).notNull()
                t.column("expiresAt", .datetime)
            }
        }
        migrator.registerMigration("v2: updates known by what they are, not by update_id") { db in
            try db.create(table: "inboxEntry") { t in
                t.autoIncrementedPrimaryKey("sequence")
                t.column("identity", .text).notNull().unique()
                t.column("payload", .blob).notNull()
            }
            try db.create(table: "handledUpdate") { t in
                t.primaryKey("identity", .text)
                t.column("handledAt", .datetime).notNull().indexed()
            }
            // Carry the inbox over; handled ids need no carrying, because the stored offset
            // already confirms them to Telegram.
            let decoder = JSONDecoder()
            for payload in try Data.fetchAll(db, sql: "SELECT payload FROM inboxUpdate ORDER BY updateID") {
                guard let identity = (try? decoder.decode(Update.self, from: payload))?.identity else { continue }
                try db.execute(sql: "INSERT OR IGNORE INTO inboxEntry (identity, payload) VALUES (?, ?)", arguments: [identity, payload])
            }
            try db.drop(table: "inboxUpdate")
            try db.drop(table: "processedUpdate")
            try db.create(table: "buttonName") { t in
                t.primaryKey("key", .text)
                t.column("name", .text).notNull()
            }
        }
        migrator.registerMigration("v3: weekly posts, per-chat schedules and topics") { db in
            try db.alter(table: "chat") { t in
                t.add(column: "weeklyPost", .boolean)
                t.add(column: "scheduleZone", .text)
                t.add(column: "weeklyTopicID", .integer)
            }
            // No version before this one posted weekly, so no choice was ever acted on; only a
            // chat that blocked the bot keeps its post off.
            try db.execute(sql: "UPDATE chat SET weeklyPost = 0 WHERE active = 0")
            try db.alter(table: "chat") { t in t.drop(column: "weeklyEnabled") }
            try db.create(table: "weeklyPost") { t in
                t.column("chatID", .integer).notNull()
                t.column("week", .integer).notNull()
                t.column("generation", .integer).notNull()
                t.column("claimedAt", .datetime).notNull()
                t.column("completedAt", .datetime)
                t.primaryKey(["chatID", "week"])
            }
            try db.create(table: "weeklyPostMessage") { t in
                t.column("chatID", .integer).notNull()
                t.column("week", .integer).notNull()
                t.column("generation", .integer).notNull()
                t.column("sequence", .integer).notNull()
                t.column("users", .text).notNull()
                t.column("messageID", .integer)
                t.column("sentAt", .datetime)
                t.primaryKey(["chatID", "week", "generation", "sequence"])
            }
        }
        migrator.registerMigration("v4: album covers, per-chat setting and uploaded collages") { db in
            try db.alter(table: "chat") { t in
                t.add(column: "covers", .boolean).notNull().defaults(to: true)
            }
            try db.create(table: "collagePhoto") { t in
                t.column("user", .text).notNull()
                t.column("week", .integer).notNull()
                t.column("minimumPlayCount", .integer).notNull()
                t.column("fileID", .text).notNull()
                t.column("savedAt", .datetime).notNull()
                t.primaryKey(["user", "week", "minimumPlayCount"])
            }
        }
        migrator.registerMigration("v5: the outbox, weekly post leases, and when a chat's post was turned on") { db in
            try db.create(table: "outbox") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("chatID", .integer).notNull()
                t.column("kind", .text).notNull()
                t.column("method", .text).notNull()
                t.column("parameters", .blob).notNull()
                t.column("upload", .blob)
                t.column("collage", .text)
                t.column("state", .text).notNull()
                t.column("createdAt", .datetime).notNull()
                t.column("expiresAt", .datetime).notNull()
                t.column("owner", .text)
                t.column("sendingAt", .datetime)
                t.column("doneAt", .datetime)
                t.column("messageID", .integer)
                t.column("note", .text)
            }
            try db.create(index: "outboxByState", on: "outbox", columns: ["state", "chatID", "id"])
            try db.alter(table: "weeklyPost") { t in
                t.add(column: "dueAt", .datetime)
                t.add(column: "owner", .text)
                t.add(column: "leaseExpiresAt", .datetime)
                t.add(column: "replyChatID", .integer)
                t.add(column: "replyMessageID", .integer)
                t.add(column: "replyTopicID", .integer)
            }
            // A post is now claimed, composed and handed to the outbox in one go. A claim an
            // older version left open part-way may have sent some users already: once beats twice.
            try db.execute(sql: """
                UPDATE weeklyPost SET completedAt = claimedAt WHERE completedAt IS NULL AND EXISTS (
                    SELECT 1 FROM weeklyPostMessage m
                    WHERE m.chatID = weeklyPost.chatID AND m.week = weeklyPost.week AND m.generation = weeklyPost.generation)
                """)
            try db.drop(table: "weeklyPostMessage")
            try db.alter(table: "chat") { t in
                // Unix time of the last `weekly on` or schedule change: a post that fell due
                // before it was never missed. Nil: on since before this version.
                t.add(column: "weeklySince", .integer)
            }
        }
        migrator.registerMigration("v6: the outbox's state apart from its body, indexes of what waits, one journal table") { db in
            // A message's state changes twice on its way out, its body never. Apart, each
            // change rewrites a narrow row (dozens to a page) instead of one of three
            // kilobyte-long rows to a page.
            try db.create(table: "outboxBody") { t in
                t.primaryKey("id", .integer).references("outbox", onDelete: .cascade)
                t.column("method", .text).notNull()
                t.column("parameters", .blob).notNull()
                t.column("upload", .blob)
                t.column("collage", .text)
            }
            try db.execute(sql: "INSERT INTO outboxBody (id, method, parameters, upload, collage) SELECT id, method, parameters, upload, collage FROM outbox")
            // Only messages on their way are looked up by state: an index of those stays a
            // page or two, where one of every state grew with each message sent.
            try db.drop(index: "outboxByState")
            try db.alter(table: "outbox") { t in
                t.drop(column: "method")
                t.drop(column: "parameters")
                t.drop(column: "upload")
                t.drop(column: "collage")
            }
            try db.execute(sql: "CREATE INDEX outboxPending ON outbox(id) WHERE state = 'pending'")
            try db.execute(sql: "CREATE INDEX outboxSending ON outbox(sendingAt) WHERE state = 'sending'")
            // An update is one row from arrival to long after it was handled: handling it
            // clears its payload and stamps it, instead of moving it from one table to another.
            try db.create(table: "journalEntry") { t in
                t.autoIncrementedPrimaryKey("sequence")
                t.column("identity", .text).notNull().unique()
                t.column("payload", .blob)
                t.column("handledAt", .datetime)
            }
            try db.execute(sql: """
                INSERT INTO journalEntry (identity, payload, handledAt)
                SELECT identity, NULL, handledAt FROM handledUpdate WHERE identity NOT IN (SELECT identity FROM inboxEntry)
                """)
            try db.execute(sql: "INSERT INTO journalEntry (identity, payload) SELECT identity, payload FROM inboxEntry ORDER BY sequence")
            try db.drop(table: "inboxEntry")
            try db.drop(table: "handledUpdate")
        }
        migrator.registerMigration("v7: every table bounded: when rows were last used, the listening cache's size") { db in
            // Rows that have been here all along count as used now: each gets its full lifetime.
            // Album info (`album.getInfo`'s answers) ages by use; past weeks' charts do not.
            let now = "strftime('%Y-%m-%d %H:%M:%f', 'now')"
            try db.execute(sql: """
                ALTER TABLE lastfmCache ADD COLUMN usedAt DATETIME;
                UPDATE lastfmCache SET usedAt = \(now);
                CREATE INDEX lastfmCacheByUse ON lastfmCache(usedAt);
                CREATE INDEX lastfmCacheExpiring ON lastfmCache(expiresAt) WHERE expiresAt IS NOT NULL;
                CREATE INDEX lastfmCacheAlbumsByUse ON lastfmCache(usedAt) WHERE key GLOB 'album.getinfo|*';
                ALTER TABLE buttonName ADD COLUMN usedAt DATETIME;
                UPDATE buttonName SET usedAt = \(now);
                CREATE INDEX buttonNameByUse ON buttonName(usedAt);
                ALTER TABLE collagePhoto ADD COLUMN usedAt DATETIME;
                UPDATE collagePhoto SET usedAt = savedAt;
                CREATE INDEX collagePhotoByUse ON collagePhoto(usedAt);
                ALTER TABLE journalEntry ADD COLUMN receivedAt DATETIME;
                UPDATE journalEntry SET receivedAt = \(now) WHERE handledAt IS NULL;
                """)
            // The cache's size, kept as it changes: summing it would read the whole table.
            // Every writer upserts (a REPLACE would delete without the trigger).
            try db.execute(sql: """
                CREATE TABLE lastfmCacheSize (id INTEGER PRIMARY KEY CHECK (id = 1), bytes INTEGER NOT NULL);
                INSERT INTO lastfmCacheSize (id, bytes)
                    SELECT 1, coalesce(sum(length(CAST(key AS BLOB)) + length(value)), 0) FROM lastfmCache;
                CREATE TRIGGER lastfmCacheAdded AFTER INSERT ON lastfmCache BEGIN
                    UPDATE lastfmCacheSize SET bytes = bytes + length(CAST(NEW.key AS BLOB)) + length(NEW.value);
                END;
                CREATE TRIGGER lastfmCacheRemoved AFTER DELETE ON lastfmCache BEGIN
                    UPDATE lastfmCacheSize SET bytes = bytes - length(CAST(OLD.key AS BLOB)) - length(OLD.value);
                END;
                CREATE TRIGGER lastfmCacheRewritten AFTER UPDATE OF value ON lastfmCache BEGIN
                    UPDATE lastfmCacheSize SET bytes = bytes + length(NEW.value) - length(OLD.value);
                END;
                """)
            // A settled message is never sent again: its picture's bytes, often the largest part
            // of the file, go at once, whichever way it was settled.
            try db.execute(sql: """
                CREATE TRIGGER outboxUploadDropped AFTER UPDATE OF state ON outbox
                WHEN NEW.state IN ('sent', 'unconfirmed', 'dropped') BEGIN
                    UPDATE outboxBody SET upload = NULL WHERE id = NEW.id AND upload IS NOT NULL;
                END;
                UPDATE outboxBody SET upload = NULL
                    WHERE upload IS NOT NULL AND id IN (SELECT id FROM outbox WHERE state IN ('sent', 'unconfirmed', 'dropped'));
                """)
        }
        migrator.registerMigration("v8: when Telegram last answered a poll, for the health check") { db in
            try db.create(table: "pollHeartbeat") { t in
                t.primaryKey("id", .integer)
                t.column("polledAt", .datetime).notNull()
            }
        }
        migrator.registerMigration("v9: Last.fm cache keys escape their values") { db in
            // A value's `%` is now written `%25`: an answer kept for an album named `a%25b`
            // would be read for one named `a%b`. Keys with a `%` are rare and cost a look-up
            // again at most; keys of values with `|` or `=` are never asked for again.
            try db.execute(sql: "DELETE FROM lastfmCache WHERE instr(key, '%') > 0")
        }
        migrator.registerMigration("v10: each chat's outbox sent by one process at a time, under a lease") { db in
            // A chat's lane: the process that sends its messages, and when its lease runs out.
            try db.create(table: "outboxLane") { t in
                t.primaryKey("chatID", .integer)
                t.column("owner", .text).notNull()
                t.column("expiresAt", .datetime).notNull()
            }
        }
        migrator.registerMigration("v11: the roster's order and album info's index in SQL that PostgreSQL speaks too") { db in
            // A roster was read in the order of SQLite's row ids, which PostgreSQL has not: the
            // order is now a column of its own, carried over from them.
            try db.execute(sql: """
                ALTER TABLE rosterEntry ADD COLUMN ordinal INTEGER;
                UPDATE rosterEntry SET ordinal = rowid;
                CREATE INDEX rosterEntryByOrdinal ON rosterEntry(ordinal);
                """)
            // Album info is found by a prefix both engines can test (`GLOB` is SQLite's own),
            // by an index of album info alone, as before.
            try db.execute(sql: """
                CREATE INDEX lastfmCacheAlbumInfoByUse ON lastfmCache(usedAt) WHERE substr(key, 1, 14) = 'album.getinfo|';
                DROP INDEX lastfmCacheAlbumsByUse;
                """)
        }
        registerTwinnedMigrations(&migrator)
        return migrator
    }
}
