#!/usr/bin/env python3
"""The deletes of an import's undo, replayed in the sqlite3 shell on a
copy of a store, with the ties' lookup indexes kept and set aside, in
turns: CPU time, peak memory and the largest WAL of each.

    python3 bench/undo_replay.py STORE [--rounds 2]

STORE is a catalog whose last action is an import into an empty catalog
(`bowties import FILE --store STORE`). Each round copies it twice and
runs, on each copy, what `bowties undo` runs for the import's range of
ties (`Catalog+Undo`, `UndoHistory.deleteRows`, `UndoHistory.removeRange`):
foreign keys on and deferred, the undo triggers recording, a 4 MiB page
cache, 4,096 rowids per `DELETE`; "aside" first drops the indexes that
`removeRange` sets aside and builds them again after, with a 2 MB cache.
It measures SQLite alone (the shell links the same 3.40.1), without the
undo's checks and report. The copies are removed after each run.
"""

import argparse
import os
import shutil
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scale_pairs  # noqa: E402

ASIDE = [
    ("bowtie_searchKey_nocase", "bowtie(searchKey COLLATE NOCASE)"),
    ("bowtie_name_nocase", "bowtie(name COLLATE NOCASE)"),
    ("bowtie_rating", "bowtie(rating)"),
    ("bowtie_lastWorn", "bowtie(lastWorn)"),
]


def script(first, last, aside):
    lines = ["PRAGMA foreign_keys = ON;", "PRAGMA cache_size = -4096;", "BEGIN;",
             "PRAGMA defer_foreign_keys = ON;",
             "UPDATE undo_recording SET action = (SELECT max(id) FROM undo_action), phase = 1, inserts = 1;"]
    if aside:
        lines += [f"DROP INDEX IF EXISTS {name};" for name, _ in ASIDE]
    start = first
    while start <= last:
        end = min(start + 4095, last)
        lines.append(f"DELETE FROM bowtie WHERE rowid BETWEEN {start} AND {end};")
        start = end + 1
    if aside:
        lines.append("PRAGMA cache_size = -2000;")
        lines += [f"CREATE INDEX {name} ON {columns};" for name, columns in ASIDE]
    lines += ["UPDATE undo_recording SET action = NULL, phase = 0, inserts = 1;", "COMMIT;"]
    return "\n".join(lines) + "\n"


def run(store, sql):
    """The script in the sqlite3 shell: (wall, cpu, peak KiB, the largest
    the WAL grew)."""
    wal = store + "-wal"
    wall, cpu, peak, largest = scale_pairs.measure(["sqlite3", store], [wal], input=sql)
    return wall, cpu, peak, largest[wal]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store")
    parser.add_argument("--rounds", type=int, default=1)
    options = parser.parse_args()
    with sqlite3.connect(f"file:{options.store}?mode=ro", uri=True) as db:
        first, last = db.execute(
            "SELECT row, lastRow FROM undo_change WHERE operation = 'range' AND tableName = 'bowtie' "
            "ORDER BY seq DESC LIMIT 1").fetchone()
    print(f"{options.store}: the import's ties are rowids {first} to {last}", flush=True)
    for round_number in range(options.rounds):
        order = [False, True] if round_number % 2 == 0 else [True, False]
        for aside in order:
            copy = options.store + ".replay"
            shutil.copyfile(options.store, copy)
            wall, cpu, peak, wal = run(copy, script(first, last, aside))
            for suffix in ("", "-wal", "-shm", "-journal"):
                if os.path.exists(copy + suffix):
                    os.remove(copy + suffix)
            count = last - first + 1
            print(f"{'aside' if aside else 'kept':5} {count:>10,} ties {wall:8.2f} s {cpu:8.2f} s CPU "
                  f"{cpu / count * 1e6:6.2f} µs CPU/tie {peak / 1024:6.1f} MiB WAL {wal / 1e6:7.0f} MB "
                  f"load {os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()
