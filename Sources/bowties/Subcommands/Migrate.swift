import ArgumentParser
import BowTiesKit
import Foundation

extension BowTies {
    /// `bowties migrate`: creates or upgrades the catalog's schema and
    /// nothing else; on PostgreSQL, the database owner's step.
    struct Migrate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "migrate",
            abstract: "Create or upgrade the catalog's tables for this version of bowties (a database owner's step).",
            discussion: """
                A catalog's tables (its schema) change with new versions of bowties. \
                On an SQLite file nothing needs doing by hand: the first command that \
                changes the catalog upgrades it, and `migrate` only does that upgrade now \
                (a missing file stays missing: `bowties import` makes one).

                On PostgreSQL (--store postgresql://USER@HOST:PORT/DB), the tables are made \
                and upgraded only by the role that owns the database. Run `bowties migrate` \
                as that role once, in an empty database and after installing a new bowties; \
                the other roles then need no more than SELECT, INSERT, UPDATE and DELETE on \
                the tables (and USAGE on their sequences), or only SELECT to read. The README's \
                "Roles on PostgreSQL" gives the GRANT statements. A command of another role \
                that would have to make or upgrade the tables is refused (exit 77) and \
                changes nothing.

                It prints what it did: the tables created, the schema upgraded from one \
                version to another, or nothing to do. It never changes a bow tie, and it \
                runs in one transaction: interrupted, it leaves the catalog as it was. \
                With --json: {"store", "before", "after", "applied"} (versions count \
                migrations; 0 is no tables).

                Exit status: 0 done or nothing to do; 66 no catalog file (SQLite); 69 the \
                server cannot be reached; 74 the catalog is from a newer bowties; 77 this \
                role does not own the database.
                """)

        @OptionGroup var options: CatalogOptions

        func run() throws {
            let store = options.storeURL
            let report = try Catalog.migrate(url: store, wait: options.waitPolicy)
            let name = store.storeDescription
            if options.json {
                try Output.json(ReportJSON(store: name, report))
            } else if report.applied.isEmpty {
                Output.line("The catalog at \(name) is up to date (schema v\(report.after)): nothing to do.")
            } else if report.created {
                Output.line("Created the catalog's tables at \(name) (schema v\(report.after)).")
            } else {
                Output.line("Upgraded the catalog at \(name) from schema v\(report.before) to v\(report.after).")
            }
        }

        /// `--json`'s object.
        private struct ReportJSON: Encodable {
            var store: String
            var before: Int
            var after: Int
            var applied: [String]

            init(store: String, _ report: SchemaMigrationReport) {
                self.store = store
                before = report.before
                after = report.after
                applied = report.applied
            }
        }
    }
}
