#!/usr/bin/env python3
"""Writes BowTies.sqlite: a Core Data store of the BowTies app's model
(shared/REFERENCE.md section 1), laid out as the real stores in
shared/coredata measure (see README.md beside this script).

No public store was written by the BowTies app itself, so this one is
made by hand, byte for byte as Core Data lays a store out. Run it from
this folder: python3 make-store.py. It replaces BowTies.sqlite and
.BowTies_SUPPORT/; the output is the same on every run.
"""
import os
import plistlib
import shutil
import sqlite3
import struct
import uuid
import zlib

STORE = "BowTies.sqlite"
SUPPORT = ".BowTies_SUPPORT/_EXTERNAL_DATA"
STORE_UUID = "5B1D6E2A-3C4F-4A8B-9D0E-1F2A3B4C5D6E"
EPOCH_2001 = 978307200  # Unix time of 2001-01-01T00:00:00Z


def png(red, green, blue):
    """A 1x1 RGB PNG of one colour."""
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(bytes([0, red, green, blue]), 9)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


def keyed_archive(root, class_name, classes):
    """An NSKeyedArchiver binary plist whose root object has `root`'s keys."""
    obj = dict(root)
    obj["$class"] = plistlib.UID(2)
    archive = {
        "$archiver": "NSKeyedArchiver",
        "$version": 100000,
        "$top": {"root": plistlib.UID(1)},
        "$objects": ["$null", obj, {"$classname": class_name, "$classes": classes}],
    }
    return plistlib.dumps(archive, fmt=plistlib.FMT_BINARY, sort_keys=True)


def uicolor(red, green, blue, alpha=1.0):
    return keyed_archive(
        {"UIRed": red, "UIGreen": green, "UIBlue": blue, "UIAlpha": alpha}, "UIColor", ["UIColor", "NSObject"])


def nscolor(red, green, blue):
    text = f"{red:g} {green:g} {blue:g}".encode() + b"\0"
    return keyed_archive({"NSColorSpace": 1, "NSRGB": text}, "NSColor", ["NSColor", "NSObject"])


def apple_date(iso_unix):
    return iso_unix - EPOCH_2001


def main():
    for path in (STORE, STORE + "-wal", STORE + "-shm"):
        if os.path.exists(path):
            os.remove(path)
    shutil.rmtree(".BowTies_SUPPORT", ignore_errors=True)
    os.makedirs(SUPPORT)

    db = sqlite3.connect(STORE)
    db.execute("PRAGMA page_size = 4096")
    # The tables as Core Data creates them (framework 1344's SQL).
    db.execute("CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
    db.execute("CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
    # Columns grouped by type, not in model order, as measured.
    db.execute(
        "CREATE TABLE ZBOWTIE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZISFAVORITE INTEGER, "
        "ZTIMESWORN INTEGER, ZLASTWORN TIMESTAMP, ZRATING FLOAT, ZNAME VARCHAR, ZSEARCHKEY VARCHAR, "
        "ZURL VARCHAR, ZID BLOB, ZPHOTODATA BLOB, ZTINTCOLOR BLOB )")
    db.execute("CREATE INDEX ZBOWTIE_Z_ENT_INDEX ON ZBOWTIE (Z_ENT)")

    external = "A1B2C3D4-E5F6-4A7B-8C9D-0E1F2A3B4C5D"
    with open(os.path.join(SUPPORT, external), "wb") as f:
        f.write(png(255, 128, 0))

    ties = [
        # Z_PK, favourite, worn, lastWorn (seconds since 2001), rating, name, key, url, id, photo, colour
        (1, 1, 4, apple_date(1403201724.0) + 0.25, 4.5, "Red Stripes", "RS", "https://example.com/ties/red",
         "800E9A6F-6C41-4A7D-8E8F-8E1B9D5A0C11", b"\x01" + png(204, 26, 51), uicolor(0.8, 0.1, 0.2)),
        (2, 0, 2, int(apple_date(1325376000)), 3.0, "Orange Paisley", "OP", None,
         "7D8C2B1E-5A4F-4E3D-9C2B-1A0F9E8D7C6B", b"\x02" + external.encode() + b"\x00", nscolor(1, 0.5, 0)),
        (3, 0, 0, None, 2.0, "Yellow Dots", "YD", None,
         "3E4F5A6B-7C8D-4E9F-A0B1-C2D3E4F5A6B7", None, uicolor(1.0, 0.85, 0.0, 0.5)),
        # Last worn before 2001: a negative date.
        (4, 1, 1, apple_date(946684800), 5.0, "Green Silk", "GS", None,
         "C0FFEE00-1234-4567-89AB-CDEF01234567", None, None),
    ]
    for (pk, favourite, worn, last, rating, name, key, url, tie_id, photo, colour) in ties:
        db.execute(
            "INSERT INTO ZBOWTIE VALUES (?, 1, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (pk, favourite, worn, last, rating, name, key, url, uuid.UUID(tie_id).bytes, photo, colour))
    db.execute("INSERT INTO Z_PRIMARYKEY VALUES (1, 'BowTie', 0, ?)", (len(ties),))
    metadata = {
        "NSStoreType": "SQLite",
        "NSPersistenceFrameworkVersion": 1344,
        "NSStoreModelVersionHashes": {"BowTie": bytes(range(32))},
        "NSStoreModelVersionHashesVersion": 3,
        "NSStoreModelVersionIdentifiers": [""],
        "_NSAutoVacuumLevel": "2",
    }
    db.execute(
        "INSERT INTO Z_METADATA VALUES (1, ?, ?)",
        (STORE_UUID, plistlib.dumps(metadata, fmt=plistlib.FMT_BINARY, sort_keys=True)))
    db.commit()
    db.close()


if __name__ == "__main__":
    main()
