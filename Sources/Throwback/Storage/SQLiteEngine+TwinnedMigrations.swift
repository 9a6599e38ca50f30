import GRDB

extension SQLiteEngine {
    /// The schema changes since PostgreSQL's first migration (v11, which builds the schema as
    /// SQLite had it then). Each has a twin of the same name in `PostgresEngine.migrations`:
    /// a change made here is made there too.
    static func registerTwinnedMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v12: each chat's updates handled by one replica at a time, under a lease") { db in
            // Which chat an update is of, and the lane of replicas sharing one database: the
            // replica that handles the chat's updates, and when its lease runs out. And the
            // replicas seen lately, which share Telegram's overall flood limit.
            try db.execute(sql: """
                ALTER TABLE journalEntry ADD COLUMN chatID INTEGER;
                CREATE INDEX journalEntryWaiting ON journalEntry(sequence) WHERE payload IS NOT NULL;
                CREATE TABLE journalLane (chatID INTEGER PRIMARY KEY NOT NULL, owner TEXT NOT NULL, expiresAt DATETIME NOT NULL);
                CREATE TABLE replica (owner TEXT PRIMARY KEY NOT NULL, seenAt DATETIME NOT NULL);
                """)
        }
        migrator.registerMigration("v13: the language each chat's admins chose") { db in
            // Nil until an admin chooses: a group speaks English, a private chat its person's language.
            try db.execute(sql: "ALTER TABLE chat ADD COLUMN language TEXT")
        }
        migrator.registerMigration("v14: the outbox's settled states named one by one where its pictures are dropped") { db in
            // `IN` a list of three makes SQLite build a table each time a message's state changes.
            try db.execute(sql: """
                DROP TRIGGER outboxUploadDropped;
                CREATE TRIGGER outboxUploadDropped AFTER UPDATE OF state ON outbox
                WHEN NEW.state = 'sent' OR NEW.state = 'unconfirmed' OR NEW.state = 'dropped' BEGIN
                    UPDATE outboxBody SET upload = NULL WHERE id = NEW.id AND upload IS NOT NULL;
                END;
                """)
        }
        migrator.registerMigration("v15: pictures dropped only from messages that upload one; no index of waiting updates on SQLite") { db in
            // Each message settled looked up its body for a picture to drop, text or not: the
            // outbox now says which messages upload one.
            // The index of waiting updates is for replicas, which read what waits every few
            // moments. SQLite serves one process, which reads it at start-up only: the index
            // cost every update a write on arrival and another once handled, for nothing.
            try db.execute(sql: """
                ALTER TABLE outbox ADD COLUMN uploads INTEGER NOT NULL DEFAULT 0;
                UPDATE outbox SET uploads = 1 WHERE id IN (SELECT id FROM outboxBody WHERE upload IS NOT NULL);
                DROP TRIGGER outboxUploadDropped;
                CREATE TRIGGER outboxUploadDropped AFTER UPDATE OF state ON outbox
                WHEN NEW.uploads = 1 AND (NEW.state = 'sent' OR NEW.state = 'unconfirmed' OR NEW.state = 'dropped') BEGIN
                    UPDATE outboxBody SET upload = NULL WHERE id = NEW.id AND upload IS NOT NULL;
                END;
                DROP INDEX journalEntryWaiting;
                """)
        }
        migrator.registerMigration("v16: pictures dropped by the code that settles their messages, not by a trigger") { db in
            // A trigger on the outbox's state made SQLite keep a statement journal for every
            // change of state, a text message's too (see `StoreTransaction.dropUploads`).
            try db.execute(sql: "DROP TRIGGER outboxUploadDropped")
        }
    }
}
