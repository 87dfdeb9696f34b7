/*
 * The bench's lower bound for an import: a BowTies-shaped XML property
 * list into SQLite with nothing a real tool would add (no validation, no
 * photo bytes, no error positions).
 *
 *   import-c FILE STORE
 *
 * libxml2's streaming xmlTextReader (the same reader bowties uses, with the
 * same safe options) feeds one prepared INSERT inside one transaction. The
 * table has the columns bowties stores, in the same encodings: lastWorn as
 * REAL seconds since 1970, tintColor as the 36-byte "BTC1" blob of
 * ColorAttributeTransformer; the photo is its imageName text only.
 * bench/alternatives/plistlib_import.py and bench/foundation create the
 * same table.
 *
 * Built by bench/run:
 *   gcc -O2 import.c $(pkg-config --cflags --libs libxml-2.0 sqlite3)
 */
#include <libxml/xmlreader.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *schema =
    "CREATE TABLE bowtie ("
    " id TEXT NOT NULL PRIMARY KEY, name TEXT NOT NULL, searchKey TEXT UNIQUE,"
    " rating REAL NOT NULL DEFAULT 0, timesWorn INTEGER NOT NULL DEFAULT 0,"
    " lastWorn REAL, isFavorite BOOLEAN NOT NULL DEFAULT 0, url TEXT,"
    " tintColor BLOB, imageName TEXT)";

static const char *insert_sql =
    "INSERT INTO bowtie (id, name, searchKey, rating, timesWorn, lastWorn,"
    " isFavorite, url, tintColor, imageName) VALUES (?,?,?,?,?,?,?,?,?,?)";

/* A growable text buffer; values are kept until the row is inserted. */
typedef struct {
    char *bytes;
    size_t length, capacity;
} buffer;

static void buffer_append(buffer *b, const char *text, size_t n) {
    if (b->length + n + 1 > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 64;
        while (capacity < b->length + n + 1) capacity *= 2;
        char *bytes = realloc(b->bytes, capacity);
        if (!bytes) { fprintf(stderr, "import-c: out of memory\n"); exit(1); }
        b->bytes = bytes;
        b->capacity = capacity;
    }
    memcpy(b->bytes + b->length, text, n);
    b->length += n;
    b->bytes[b->length] = 0;
}

static void buffer_set(buffer *b, const buffer *from) {
    b->length = 0;
    buffer_append(b, from->bytes ? from->bytes : "", from->length);
}

enum field { F_ID, F_NAME, F_KEY, F_URL, F_IMAGE, F_STRINGS, F_NONE = -1 };

typedef struct {
    buffer text[F_STRINGS];
    int has[F_STRINGS];
    double rating, last_worn;
    long long times_worn;
    int has_rating, has_last_worn, has_times_worn, is_favorite;
    long color[3]; /* red, green, blue */
    int has_color;
} record;

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

/* "2014-06-19T18:15:24Z" to seconds since 1970; 0 when malformed. */
static int parse_date(const char *s, double *out) {
    int y, mo, d, h, mi, se;
    if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2dZ", &y, &mo, &d, &h, &mi, &se) != 6) return 0;
    *out = (double)(days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + se);
    return 1;
}

static void put_double_be(unsigned char *to, double value) {
    uint64_t bits;
    memcpy(&bits, &value, 8);
    for (int i = 7; i >= 0; i--) { to[i] = (unsigned char)(bits & 0xff); bits >>= 8; }
}

static int fail(sqlite3 *db, const char *what) {
    fprintf(stderr, "import-c: %s: %s\n", what, sqlite3_errmsg(db));
    return 1;
}

static int insert(sqlite3 *db, sqlite3_stmt *statement, record *r) {
    for (int f = F_ID; f < F_STRINGS; f++) {
        int column = f == F_ID ? 1 : f == F_NAME ? 2 : f == F_KEY ? 3 : f == F_URL ? 8 : 10;
        if (r->has[f])
            sqlite3_bind_text(statement, column, r->text[f].bytes, (int)r->text[f].length, SQLITE_STATIC);
        else
            sqlite3_bind_null(statement, column);
    }
    sqlite3_bind_double(statement, 4, r->has_rating ? r->rating : 0);
    sqlite3_bind_int64(statement, 5, r->has_times_worn ? r->times_worn : 0);
    if (r->has_last_worn) sqlite3_bind_double(statement, 6, r->last_worn);
    else sqlite3_bind_null(statement, 6);
    sqlite3_bind_int(statement, 7, r->is_favorite);
    unsigned char color[36];
    if (r->has_color) {
        memcpy(color, "BTC1", 4);
        for (int i = 0; i < 3; i++) put_double_be(color + 4 + 8 * i, r->color[i] / 255.0);
        put_double_be(color + 28, 1.0);
        sqlite3_bind_blob(statement, 9, color, 36, SQLITE_STATIC);
    } else {
        sqlite3_bind_null(statement, 9);
    }
    if (sqlite3_step(statement) != SQLITE_DONE) return fail(db, "insert");
    sqlite3_reset(statement);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: import-c FILE STORE\n");
        return 64;
    }
    xmlTextReaderPtr reader = xmlReaderForFile(
        argv[1], NULL, XML_PARSE_NONET | XML_PARSE_NOCDATA | XML_PARSE_COMPACT | XML_PARSE_BIG_LINES);
    if (!reader) { fprintf(stderr, "import-c: cannot open %s\n", argv[1]); return 66; }

    sqlite3 *db;
    sqlite3_stmt *statement;
    if (sqlite3_open(argv[2], &db) != SQLITE_OK) return fail(db, "open");
    if (sqlite3_exec(db, schema, NULL, NULL, NULL) != SQLITE_OK) return fail(db, "create table");
    if (sqlite3_prepare_v2(db, insert_sql, -1, &statement, NULL) != SQLITE_OK) return fail(db, "prepare");
    if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) return fail(db, "begin");

    record r;
    memset(&r, 0, sizeof r);
    buffer key = {0}, color_key = {0}, value = {0};
    int in_record = 0, in_color = 0;
    long long count = 0;
    int status;
    while ((status = xmlTextReaderRead(reader)) == 1) {
        int type = xmlTextReaderNodeType(reader);
        int depth = xmlTextReaderDepth(reader);
        if (type == XML_READER_TYPE_TEXT || type == XML_READER_TYPE_CDATA) {
            if (in_record) {
                const char *text = (const char *)xmlTextReaderConstValue(reader);
                buffer_append(&value, text, strlen(text));
            }
            continue;
        }
        int is_end = type == XML_READER_TYPE_END_ELEMENT;
        if (type != XML_READER_TYPE_ELEMENT && !is_end) continue;
        const char *name = (const char *)xmlTextReaderConstLocalName(reader);
        if (!is_end) {
            if (depth == 2 && strcmp(name, "dict") == 0) { /* a new record */
                memset(r.has, 0, sizeof r.has);
                r.has_rating = r.has_last_worn = r.has_times_worn = r.is_favorite = r.has_color = 0;
                in_record = 1;
                continue;
            }
            if (!in_record) continue;
            if (depth == 3 && strcmp(name, "dict") == 0) {
                in_color = strcmp(key.bytes ? key.bytes : "", "tintColor") == 0;
                if (in_color) r.has_color = 1, r.color[0] = r.color[1] = r.color[2] = 0;
                continue;
            }
            value.length = 0;
            if (value.bytes) value.bytes[0] = 0;
            /* <true/>, <string/>: no end element follows; finish now. */
            if (!xmlTextReaderIsEmptyElement(reader)) continue;
        }
        if (!in_record) continue;
        if (depth == 2) { /* </dict> of the record */
            if (insert(db, statement, &r)) return 1;
            count++;
            in_record = 0;
        } else if (in_color) {
            if (depth == 3) in_color = 0; /* </dict> of tintColor */
            else if (strcmp(name, "key") == 0) buffer_set(&color_key, &value);
            else if (color_key.bytes) {
                long component = strtol(value.bytes ? value.bytes : "0", NULL, 10);
                if (strcmp(color_key.bytes, "red") == 0) r.color[0] = component;
                else if (strcmp(color_key.bytes, "green") == 0) r.color[1] = component;
                else if (strcmp(color_key.bytes, "blue") == 0) r.color[2] = component;
            }
        } else if (depth == 3) {
            if (strcmp(name, "key") == 0) { buffer_set(&key, &value); continue; }
            const char *k = key.bytes ? key.bytes : "";
            const char *v = value.bytes ? value.bytes : "";
            enum field f = F_NONE;
            if (strcmp(k, "id") == 0) f = F_ID;
            else if (strcmp(k, "name") == 0) f = F_NAME;
            else if (strcmp(k, "searchKey") == 0) f = F_KEY;
            else if (strcmp(k, "url") == 0) f = F_URL;
            else if (strcmp(k, "imageName") == 0) f = F_IMAGE;
            if (f != F_NONE) {
                buffer_set(&r.text[f], &value);
                r.has[f] = 1;
            } else if (strcmp(k, "rating") == 0) {
                r.rating = strtod(v, NULL);
                r.has_rating = 1;
            } else if (strcmp(k, "timesWorn") == 0) {
                r.times_worn = strtoll(v, NULL, 10);
                r.has_times_worn = 1;
            } else if (strcmp(k, "lastWorn") == 0) {
                r.has_last_worn = parse_date(v, &r.last_worn);
            } else if (strcmp(k, "isFavorite") == 0) {
                r.is_favorite = strcmp(name, "true") == 0;
            }
        }
    }
    if (status != 0) {
        fprintf(stderr, "import-c: %s is not well-formed XML\n", argv[1]);
        return 65;
    }
    if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) return fail(db, "commit");
    sqlite3_finalize(statement);
    sqlite3_close(db);
    xmlFreeTextReader(reader);
    printf("imported %lld records\n", count);
    return 0;
}
