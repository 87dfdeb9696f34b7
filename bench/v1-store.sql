-- A 100,000-tie store with bowties 0.1.0's schema (migration v1 only), no
-- photos: what docs/ARCHITECTURE.md ("A store an earlier release made")
-- measured reads through the read shims on. Usage:
--   sqlite3 /tmp/v1/catalog.sqlite < bench/v1-store.sql
--   cp -r /tmp/v1 /tmp/v3 && bowties config --photo-threshold 102400 --store /tmp/v3/catalog.sqlite
--   then time `bowties list --no-pager` (and export --json, count) on each.
PRAGMA journal_mode = WAL;
CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
INSERT INTO grdb_migrations VALUES ('v1: bow ties, blobs and settings');
CREATE TABLE "blob" ("sha256" TEXT PRIMARY KEY NOT NULL, "byteCount" INTEGER NOT NULL, "external" BOOLEAN NOT NULL, "data" BLOB);
CREATE TABLE "bowtie" ("id" TEXT PRIMARY KEY NOT NULL, "name" TEXT NOT NULL, "searchKey" TEXT UNIQUE, "rating" DOUBLE NOT NULL DEFAULT 0, "timesWorn" INTEGER NOT NULL DEFAULT 0, "lastWorn" DOUBLE, "isFavorite" BOOLEAN NOT NULL DEFAULT 0, "url" TEXT, "tintColor" BLOB, "photoData_sha256" TEXT REFERENCES "blob"("sha256"));
CREATE INDEX bowtie_searchKey_nocase ON bowtie(searchKey COLLATE NOCASE);
CREATE INDEX bowtie_photoData_sha256 ON bowtie(photoData_sha256);
CREATE TABLE "setting" ("key" TEXT PRIMARY KEY NOT NULL, "value" ANY);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
INSERT INTO bowtie (id, name, searchKey, rating, timesWorn, lastWorn, isFavorite, url)
SELECT upper(printf('%08X-0000-4000-8000-%012X', i, i)), 'Tie number ' || i, 'K' || i, (i % 50) / 10.0, i % 30, 1400000000 + i * 60, i % 7 = 0, 'https://example.com/ties/' || i FROM n;
