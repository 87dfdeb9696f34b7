#!/usr/bin/env python3
"""The bench's Python alternative for an import: the standard library only.

    python3 plistlib_import.py FILE STORE

plistlib.load reads the whole file into memory, then sqlite3's executemany
inserts every record in one transaction, into the same table and with the
same encodings as bench/reference/import.c (lastWorn as REAL seconds since
1970, tintColor as the 36-byte "BTC1" blob, imageName as text).
"""

import calendar
import plistlib
import sqlite3
import struct
import sys

SCHEMA = (
    "CREATE TABLE bowtie ("
    " id TEXT NOT NULL PRIMARY KEY, name TEXT NOT NULL, searchKey TEXT UNIQUE,"
    " rating REAL NOT NULL DEFAULT 0, timesWorn INTEGER NOT NULL DEFAULT 0,"
    " lastWorn REAL, isFavorite BOOLEAN NOT NULL DEFAULT 0, url TEXT,"
    " tintColor BLOB, imageName TEXT)"
)
INSERT = (
    "INSERT INTO bowtie (id, name, searchKey, rating, timesWorn, lastWorn,"
    " isFavorite, url, tintColor, imageName) VALUES (?,?,?,?,?,?,?,?,?,?)"
)
COLOR = struct.Struct(">4s4d")


def row(tie):
    last_worn = tie.get("lastWorn")
    color = tie.get("tintColor")
    return (
        tie.get("id"),
        tie.get("name"),
        tie.get("searchKey"),
        float(tie.get("rating", 0)),
        tie.get("timesWorn", 0),
        calendar.timegm(last_worn.timetuple()) if last_worn is not None else None,
        tie.get("isFavorite", False),
        tie.get("url"),
        COLOR.pack(b"BTC1", color.get("red", 0) / 255, color.get("green", 0) / 255,
                   color.get("blue", 0) / 255, 1.0) if color is not None else None,
        tie.get("imageName"),
    )


def main():
    if len(sys.argv) != 3:
        print("usage: plistlib_import.py FILE STORE", file=sys.stderr)
        return 64
    with open(sys.argv[1], "rb") as file:
        ties = plistlib.load(file)
    connection = sqlite3.connect(sys.argv[2], isolation_level=None)
    connection.execute(SCHEMA)
    connection.execute("BEGIN")
    connection.executemany(INSERT, (row(tie) for tie in ties))
    connection.execute("COMMIT")
    connection.close()
    print(f"imported {len(ties)} records")
    return 0


if __name__ == "__main__":
    sys.exit(main())
