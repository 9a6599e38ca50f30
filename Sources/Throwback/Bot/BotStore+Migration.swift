import Logging

extension BotStore {
    /// A group became a supergroup, as an upgrade message or a refused reply said: its
    /// roster, settings and waiting messages move to the new id. A failure is logged; the bot goes on.
    func followMigration(from old: Int64, to new: Int64, logger: Logger) async {
        do {
            try await migrateChat(from: old, to: new)
            logger.notice("group became a supergroup; its roster, settings and waiting messages moved", metadata: ["from": "\(old)", "to": "\(new)"])
        } catch {
            logger.error("could not move a migrated chat's data", metadata: ["from": "\(old)", "to": "\(new)", "error": "\(error)"])
        }
    }
}
