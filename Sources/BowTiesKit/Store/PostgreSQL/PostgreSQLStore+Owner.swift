import Foundation

/// Least privilege on PostgreSQL: who may create and upgrade the schema.
///
/// Three roles use a shared catalog (README, "Roles on PostgreSQL"):
///
/// - the **owner** of the database, who creates the schema and upgrades
///   it (`bowties migrate`, or its first command that writes);
/// - **everyday** roles, granted `SELECT`, `INSERT`, `UPDATE` and
///   `DELETE` on the tables (and `USAGE` on their sequences): every
///   command but the schema's creation and upgrades;
/// - **read-only** roles, granted `SELECT`: `list`, `show`, `export`.
///
/// A command of another role that would have to create or upgrade the
/// schema is refused before anything is sent that writes: the server
/// would refuse its `CREATE TABLE` too, but in words ("permission denied
/// for schema public") that do not say who can help, and a role that was
/// given `CREATE` on the schema would make tables it owns, which the
/// owner's later migrations could not alter.
extension PostgreSQLStore {
    /// Who is connected, and whether that role acts as the database's
    /// owner.
    struct Ownership: Sendable {
        /// `current_user`.
        var role: String
        /// The owner of the database (`pg_database.datdba`).
        var owner: String
        /// Whether `role` has the owner's privileges: the owner itself, a
        /// member of the owner role that inherits them, or a superuser
        /// (`pg_has_role(…, 'USAGE')`).
        var isOwner: Bool
    }

    /// Asks the server who is connected and who owns the database.
    func ownership(_ session: any StoreSession) throws -> Ownership {
        let row = try session.fetchOne(
            sql: """
                SELECT current_user::text, pg_get_userbyid(d.datdba)::text, pg_has_role(current_user, d.datdba, 'USAGE') \
                FROM pg_database d WHERE d.datname = current_database()
                """)
        guard let row else {
            throw CatalogError(.storeIO, "catalog error at \(description): the server does not list this database")
        }
        return Ownership(
            role: try row.decode(String.self, atIndex: 0), owner: try row.decode(String.self, atIndex: 1),
            isOwner: try row.decode(Int64.self, atIndex: 2) != 0)
    }

    /// Refuses, with exit 77 and the way out, a role that is not the
    /// owner's where the schema would have to be created or upgraded
    /// (`state`). Nothing has been written when it throws.
    func requireOwner(toMigrate state: SchemaState, _ session: any StoreSession) throws {
        let who = try ownership(session)
        guard !who.isOwner else { return }
        let what: String
        switch state {
        case .outdated(let pending):
            let current = migrationIdentifiers.count
            what =
                "upgrade the catalog's schema (from v\(current - pending.count) to v\(current), "
                + "which this version of bowties needs)"
        default:
            what = "create the catalog's schema (the database holds no catalog yet)"
        }
        throw CatalogError(
            .permissionDenied,
            "only the owner of the database at \(description) (role \"\(who.owner)\") can \(what); "
                + "this is role \"\(who.role)\"; nothing was changed",
            hint:
                "The owner runs `bowties migrate --store ADDRESS` once (as \(who.owner)); then every role "
                + "granted SELECT, INSERT, UPDATE and DELETE on its tables can write.")
    }
}
