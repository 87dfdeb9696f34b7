#!/usr/bin/env python3
"""`bowties coredata dump` against the sqlite3 shell, side by side.

    bench/run --coredata              # builds bowties (release), then this
    BOWTIES_BIN=path python3 bench/coredata.py [--runs K]

The store: the SurfJournal store of Tests/EndToEndTests/Fixtures/CoreData,
5,000 rows, every one still in its -wal (a real Core Data store). Both
sides read a private copy of it, so that neither can checkpoint the copy
the other reads:

- bowties: `coredata dump STORE --format json --binary none`: the model,
  the WAL (bowties copies .sqlite and -wal to a temporary folder when the
  -wal has frames, so that the user's files are never written), typed
  values, ISO 8601 dates, objectIDs;
- sqlite3: `sqlite3 -json 'file:STORE?mode=ro' 'SELECT * FROM ZJOURNALENTRY'`,
  raw columns.

Runs alternate (harness.measure_short: the first turn rotates), so that
load from other processes falls on both sides; the figures are medians.
Instruction counts (`perf stat -e instructions`, when perf can count
them; not in every container) do not depend on load at all. The target: bowties within 2x of sqlite3.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURE = os.path.join(ROOT, "Tests/EndToEndTests/Fixtures/CoreData/surfjournal-wal")
STORE = "SurfJournalModel.sqlite"
TARGET = 2.0


def instructions(command):
    """User-space instructions of one run, or None without perf."""
    if not shutil.which("perf"):
        return None
    result = subprocess.run(["perf", "stat", "-x,", "-e", "instructions:u"] + command,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for line in result.stderr.splitlines():
        fields = line.split(",")
        if len(fields) > 2 and fields[2].startswith("instructions") and fields[0].isdigit():
            return int(fields[0])
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=21, help="runs of each side (default 21)")
    options, _ = parser.parse_known_args()
    bowties = os.environ.get("BOWTIES_BIN") or os.path.join(ROOT, ".build/release/bowties")
    work = tempfile.mkdtemp(prefix="bowties-bench-coredata-")
    try:
        stores = {}
        for side in ("bowties", "sqlite3"):
            shutil.copytree(FIXTURE, os.path.join(work, side))
            stores[side] = os.path.join(work, side, STORE)
        commands = {
            "bowties coredata dump": [bowties, "coredata", "dump", stores["bowties"], "--format", "json",
                                      "--binary", "none"],
            "sqlite3 -json": ["sqlite3", "-json", f"file:{stores['sqlite3']}?mode=ro",
                              "SELECT * FROM ZJOURNALENTRY"],
        }
        # Same rows on both sides first.
        counts = {}
        for name, command in commands.items():
            output = subprocess.run(command, check=True, stdout=subprocess.PIPE).stdout
            counts[name] = len(json.loads(output))
        if len(set(counts.values())) != 1 or 5000 not in counts.values():
            sys.exit(f"the two sides disagree on the rows: {counts}")
        results = {}
        harness.measure_short(results, commands, options.runs)
        mine, theirs = results["bowties coredata dump"], results["sqlite3 -json"]
        if not (mine.ok and theirs.ok):
            sys.exit(f"a side failed: {mine.failure or theirs.failure}")
        ratio = mine.wall / theirs.wall
        counted = {name: instructions(command) for name, command in commands.items()}
        print("## Core Data dump vs sqlite3 -json (5,000 rows, all in the -wal)\n")
        print("| command | median wall | peak RSS | instructions |")
        print("|---|---:|---:|---:|")
        for name, result in results.items():
            count = counted[name]
            print(f"| `{name}` | {result.wall * 1000:.1f} ms | {result.peak / 1024:.1f} MiB | "
                  f"{f'{count / 1e6:.1f} M' if count else 'n/a'} |")
        verdict = "met" if ratio <= TARGET else "MISSED"
        print(f"\nbowties / sqlite3: {ratio:.2f}x wall (target <= {TARGET:.0f}x: {verdict})", end="")
        if all(counted.values()):
            print(f", {counted['bowties coredata dump'] / counted['sqlite3 -json']:.2f}x instructions", end="")
        print(f"; {options.runs} alternating runs each.")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
