/* The storing side of an import alone, for session 8 of bench/README.md.
 *
 *   gcc -O2 idbench.c -o idbench -lsqlite3 && ./idbench N MODE STORE
 *
 * idbench N MODE STORE: N bowtie-shaped rows with random UUID ids in one
 * WAL transaction (cache 6 MiB, synchronous NORMAL), as bowties stores them.
 * MODE: text-pk (id TEXT PRIMARY KEY, today), unique-late (id TEXT, UNIQUE
 * index built after the load), blob-pk (id as 16 bytes, PRIMARY KEY). */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
static uint64_t s = 88172645463325252ULL;
static uint64_t rnd(void) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; }
static void die(sqlite3 *db, const char *w) { fprintf(stderr, "%s: %s\n", w, sqlite3_errmsg(db)); exit(1); }
int main(int argc, char **argv) {
    long n = atol(argv[1]); const char *mode = argv[2];
    int blob = !strcmp(mode, "blob-pk"), late = !strcmp(mode, "unique-late");
    sqlite3 *db; if (sqlite3_open(argv[3], &db)) die(db, "open");
    char schema[1024];
    snprintf(schema, sizeof schema,
        "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-6144;"
        "CREATE TABLE bowtie (id %s NOT NULL %s, name TEXT NOT NULL, searchKey TEXT UNIQUE,"
        " rating DOUBLE, timesWorn INTEGER, lastWorn DOUBLE, isFavorite BOOLEAN, url TEXT,"
        " tintColor BLOB, photoData_sha256 TEXT);",
        blob ? "BLOB" : "TEXT", late ? "" : "PRIMARY KEY");
    if (sqlite3_exec(db, schema, 0, 0, 0)) die(db, "schema");
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "INSERT INTO bowtie VALUES (?,?,?,?,?,?,?,?,?,?)", -1, &st, 0)) die(db, "prep");
    sqlite3_exec(db, "BEGIN", 0, 0, 0);
    char idt[37], name[64], key[32], url[80]; unsigned char idb[16], color[36] = "BTC1";
    const char *sha = "3f2a9c1d7e5b4a6f8c0d2e1f3a5b7c9d0e2f4a6b8c0d1e3f5a7b9c1d3e5f7a90";
    for (long i = 0; i < n; i++) {
        for (int k = 0; k < 16; k += 8) { uint64_t r = rnd(); memcpy(idb + k, &r, 8); }
        snprintf(idt, sizeof idt, "%02X%02X%02X%02X-%02X%02X-%02X%02X-%02X%02X-%02X%02X%02X%02X%02X%02X",
            idb[0],idb[1],idb[2],idb[3],idb[4],idb[5],idb[6],idb[7],idb[8],idb[9],idb[10],idb[11],idb[12],idb[13],idb[14],idb[15]);
        snprintf(name, sizeof name, "Bow tie number %ld in a fine silk", i);
        snprintf(key, sizeof key, "G%07ld", i);
        snprintf(url, sizeof url, "https://example.com/ties/%ld", i);
        if (blob) sqlite3_bind_blob(st, 1, idb, 16, SQLITE_STATIC); else sqlite3_bind_text(st, 1, idt, 36, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, key, -1, SQLITE_STATIC);
        sqlite3_bind_double(st, 4, (double)(i % 5));
        sqlite3_bind_int64(st, 5, i % 7);
        sqlite3_bind_double(st, 6, 7e8 + i);
        sqlite3_bind_int(st, 7, i % 2);
        sqlite3_bind_text(st, 8, url, -1, SQLITE_STATIC);
        sqlite3_bind_blob(st, 9, color, 36, SQLITE_STATIC);
        sqlite3_bind_text(st, 10, sha, 64, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE) die(db, "insert");
        sqlite3_reset(st);
    }
    if (late && sqlite3_exec(db, "CREATE UNIQUE INDEX bowtie_id ON bowtie(id)", 0, 0, 0)) die(db, "index");
    if (sqlite3_exec(db, "COMMIT", 0, 0, 0)) die(db, "commit");
    sqlite3_finalize(st); sqlite3_close(db);
    return 0;
}
