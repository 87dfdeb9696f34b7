#!/usr/bin/env python3
"""The import against the C reference alone, in interleaved pairs.

    BOWTIES_BIN=bench/work/bin/bowties python3 bench/import_pairs.py 100k 400k 1M --runs 3
    BASELINE_BIN=other/bowties BOWTIES_BIN=... python3 bench/import_pairs.py 400k   # and a third in the rounds
    python3 bench/import_pairs.py 100k 400k 1M --binary --tags                       # and the binary and tagged files

For each size: the generated file of `bench/harness.py` (with photos, as
its "bowties" and "c" imports), read once into the page cache, then
`runs` rounds, each round both imports in turn (who goes first
alternates), each into a new store. Prints per size the median wall time,
CPU (user + system) and peak RSS of each, and the ratios of the medians,
with the load average before and after each size: on a shared machine
only a ratio taken in one run means anything.

`--binary` adds bowties' import of the same records as a binary
property list (the XML file converted by Python's plistlib, kept beside
it in bench/work/data/), against the C reference reading the XML file:
the C reference reads only XML, and the bar is the same. `--tags` adds
bowties' import of the tagged file (`gen.py --tags`, one record in three
with tags), against the untagged import as well. Each joins the same
rounds, in the rotation.

The harness measures far more at each size (exports, point commands);
this is the import's part of it, for a session that changes the import
only. The C reference is built as `bench/run` builds it when
IMPORT_C_BIN is not set and bench/work/bin/import-c is missing.
"""

import argparse
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sizes", nargs="+", type=harness.count_argument)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--binary", action="store_true", help="add the binary plist of the same records")
    parser.add_argument("--tags", action="store_true", help="add the tagged file")
    options = parser.parse_args(argv)
    bowties = os.environ.get("BOWTIES_BIN", os.path.join(harness.WORK, "bin", "bowties"))
    c = os.environ.get("IMPORT_C_BIN", os.path.join(harness.WORK, "bin", "import-c"))
    baseline = os.environ.get("BASELINE_BIN")
    if not os.access(c, os.X_OK):
        flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libxml-2.0", "sqlite3"],
                               check=True, capture_output=True, text=True).stdout.split()
        os.makedirs(os.path.dirname(c), exist_ok=True)
        subprocess.run(["gcc", "-O2", "-Wall", "-o", c,
                        os.path.join(harness.BENCH, "reference", "import.c")] + flags, check=True)
    stores = os.path.join(harness.WORK, "stores")
    os.makedirs(stores, exist_ok=True)
    print("| records | runs | bowties wall | C wall | wall ratio | bowties CPU | C CPU | CPU ratio "
          "| bowties peak RSS | C peak RSS | load before → after |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for count in options.sizes:
        plist = harness.data_file(count, images=True)
        harness.warm(plist)
        before = "%.2f" % os.getloadavg()[0]
        results = {"bowties": harness.Result(), "c": harness.Result()}
        commands = {
            "bowties": lambda store: [bowties, "import", plist, "--images", harness.IMAGES, "--store", store],
            "c": lambda store: [c, plist, store],
        }
        if baseline:
            results["baseline"] = harness.Result()
            commands["baseline"] = lambda store: [baseline, "import", plist, "--images", harness.IMAGES,
                                                  "--store", store]
        if options.binary:
            binary = os.path.join(os.path.dirname(plist), os.path.basename(plist)[:-len(".plist")] + "-binary.plist")
            if not os.path.exists(binary):
                harness.binary_plist(plist, binary)
            harness.warm(binary)
            results["binary"] = harness.Result()
            commands["binary"] = lambda store: [bowties, "import", binary, "--images", harness.IMAGES,
                                                "--store", store]
        if options.tags:
            tagged = harness.data_file(count, images=True, tags=True)
            harness.warm(tagged)
            results["tags"] = harness.Result()
            commands["tags"] = lambda store: [bowties, "import", tagged, "--images", harness.IMAGES,
                                              "--store", store]
        names = list(commands)
        for run in range(options.runs):
            for name in names[run % len(names):] + names[:run % len(names)]:
                store = os.path.join(stores, f"pair-{name}-{count}.sqlite")
                harness.remove_store(store)
                harness.record(results[name], harness.timed(commands[name](store)), f"import {name}")
                rows = harness.query(store, "SELECT count(*) FROM bowtie")[0]
                if rows != count:
                    sys.exit(f"{name} stored {rows} rows of {count}")
                harness.remove_store(store)
        after = "%.2f" % os.getloadavg()[0]
        b, r = results["bowties"], results["c"]
        bc, rc = statistics.median(b.cpus), statistics.median(r.cpus)
        print(f"| {count:,} | {options.runs} | {b.wall:.2f} s | {r.wall:.2f} s | **{b.wall / r.wall:.2f}×** "
              f"| {bc:.2f} s | {rc:.2f} s | {bc / rc:.2f}× | {max(b.rss) / 1024:.1f} MiB "
              f"| {max(r.rss) / 1024:.1f} MiB | {before} → {after} |", flush=True)
        for name, what in (("baseline", "baseline"), ("binary", "binary plist"), ("tags", "with tags")):
            if name not in results:
                continue
            m = results[name]
            mc = statistics.median(m.cpus)
            print(f"| {count:,} {what} | {options.runs} | {m.wall:.2f} s | {r.wall:.2f} s | **{m.wall / r.wall:.2f}×** "
                  f"| {mc:.2f} s | {rc:.2f} s | {mc / rc:.2f}× | {max(m.rss) / 1024:.1f} MiB "
                  f"| {max(r.rss) / 1024:.1f} MiB | (same rounds) |", flush=True)
            if name == "tags":
                print(f"<!-- {count}: with tags ÷ without, wall {m.wall / b.wall:.2f}×, CPU {mc / bc:.2f}× -->",
                      flush=True)
            print(f"<!-- {count}: {what} walls {[round(x, 2) for x in m.walls]} -->", flush=True)
        print(f"<!-- {count}: bowties walls {[round(x, 2) for x in b.walls]}, C walls "
              f"{[round(x, 2) for x in r.walls]}, bowties RSS KiB {b.rss} -->", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
