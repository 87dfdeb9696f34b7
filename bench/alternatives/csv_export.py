#!/usr/bin/env python3
"""The bench's Python alternative for an export: sqlite3 and csv only.

    python3 csv_export.py STORE OUTPUT

Reads a bowties store with one cursor and writes the same CSV as
`bowties export` (same columns, cells and CRLF line ends: lastWorn in ISO
8601 UTC, isFavorite as true/false, tintColor as #RRGGBB, the photo as its
size and SHA-256, the tags as their names sorted ignoring case and joined
by ", ", the counts before the history, and the wears as JSON text), so
both do the same work. The bench compares the two files.
"""

import csv
import json
import sqlite3
import struct
import sys
import time

HEADER = ["id", "name", "searchKey", "rating", "timesWorn", "lastWorn", "isFavorite",
          "url", "tintColor", "photoBytes", "photoSHA256", "tags",
          "timesWornBefore", "lastWornBefore", "wears"]
# The tags come as one text per tie, the names joined by U+001F (a
# character no tag name may hold), as bowties reads them.
QUERY = """
    SELECT id, name, searchKey, rating, timesWorn, lastWorn, isFavorite, url, tintColor,
           blob.byteCount, photoData_sha256,
           (SELECT group_concat(tag.name, char(31)) FROM bowtie_tag
            JOIN tag ON tag.pk = bowtie_tag.tag_pk WHERE bowtie_tag.bowTie_id = bowtie.id),
           timesWorn_baseline, lastWorn_baseline,
           (SELECT json_group_array(json_object('date', date, 'note', note))
            FROM (SELECT date, note FROM wear WHERE wear.bowTie_id = bowtie.id ORDER BY date, pk))
    FROM bowtie LEFT JOIN blob ON blob.sha256 = photoData_sha256
    ORDER BY bowtie.rowid
"""
COLOR = struct.Struct(">4s4d")


def number(value):
    """4 for 4.0, else the shortest text that reads back (as Swift prints)."""
    return str(int(value)) if value == int(value) and abs(value) < 1e15 else repr(value)


def color(blob):
    if blob is None:
        return ""
    _, red, green, blue, _ = COLOR.unpack(blob)
    return "#%02X%02X%02X" % tuple(int(min(max(c, 0), 1) * 255 + 0.5) for c in (red, green, blue))


def iso(seconds):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds)) if seconds is not None else ""


def wears(array):
    """The wears, oldest first, as bowties writes them: compact JSON, dates in ISO 8601 UTC."""
    return json.dumps([{"date": iso(wear["date"]), "note": wear["note"]} for wear in json.loads(array)],
                      separators=(",", ":"), ensure_ascii=False)


def tags(joined):
    """The names sorted ignoring case (then by code point), as bowties does."""
    if joined is None:
        return ""
    return ", ".join(sorted(joined.split("\x1f"), key=lambda name: (name.lower(), name)))


def main():
    if len(sys.argv) != 3:
        print("usage: csv_export.py STORE OUTPUT", file=sys.stderr)
        return 64
    connection = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
    count = 0
    with open(sys.argv[2], "w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out, lineterminator="\r\n")
        writer.writerow(HEADER)
        for (tie_id, name, key, rating, worn, last, favourite, url, tint,
             size, sha, joined, worn_before, last_before, history) in connection.execute(QUERY):
            writer.writerow([
                tie_id, name, key, number(rating), worn, iso(last),
                "true" if favourite else "false",
                url, color(tint), size, sha, tags(joined),
                worn_before, iso(last_before), wears(history),
            ])
            count += 1
    connection.close()
    print(f"exported {count} bow ties")
    return 0


if __name__ == "__main__":
    sys.exit(main())
