#!/usr/bin/env python3
"""Undo and redo of a whole-catalog import at two sizes, in turns.

    BOWTIES_BIN=/path/to/bowties python3 bench/undo_redo_scale.py \
        bench/work/data/bowties-g1-1000000-nophotos.jsonl \
        bench/work/data/bowties-g1-10000000-nophotos.jsonl --rounds 3

Imports each file into a new catalog (once), then, `--rounds` times, for
each size in turn (alternating which goes first): `bowties undo` and
`bowties redo`, each timed by /usr/bin/time (wall, user + system CPU,
peak RSS) while the largest `-wal` file is polled every 0.1 s. Prints a
Markdown table of medians and the larger size's time and CPU per record
over the smaller's. `bench/run --records 10M` measures the undo in its
scale section; this adds the redo, which the harness does not run, and
several rounds of both without importing again.
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scale_pairs import measure  # noqa: E402  (the same timing as the scale section's pairs)


def timed(command, wal):
    """Runs command under /usr/bin/time; returns wall, CPU, peak KiB, WAL max."""
    wall, cpu, peak, largest = measure(command, [wal])
    return wall, cpu, peak, largest[wal]


def count_lines(path):
    with open(path, "rb") as handle:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b""))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("small")
    parser.add_argument("large")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--work", help="folder for the two catalogs (default: a temporary one, removed after)")
    arguments = parser.parse_args()
    binary = os.environ.get("BOWTIES_BIN", ".build/release/bowties")
    work = arguments.work or tempfile.mkdtemp(prefix="undo-scale-")
    sizes = []
    for label, path in (("small", arguments.small), ("large", arguments.large)):
        store = os.path.join(work, f"{label}.bowties")
        records = count_lines(path)
        if not os.path.exists(store):
            wall, cpu, peak, _ = timed([binary, "import", path, "--store", store], store + "-wal")
            print(f"imported {records:,} records in {wall:.1f} s ({peak / 1024:.1f} MiB)", flush=True)
        sizes.append({"records": records, "store": store, "undo": [], "redo": []})
    try:
        for round_ in range(arguments.rounds):
            order = sizes if round_ % 2 == 0 else list(reversed(sizes))
            for size in order:
                for step in ("undo", "redo"):
                    figures = timed([binary, step, "--store", size["store"]], size["store"] + "-wal")
                    size[step].append(figures)
                    print(f"{size['records']:>12,} {step} round {round_ + 1}: {figures[0]:.2f} s wall, "
                          f"{figures[1]:.2f} s CPU, {figures[2] / 1024:.1f} MiB, WAL {figures[3] / 1e6:.0f} MB",
                          flush=True)
    finally:
        if not arguments.work:
            shutil.rmtree(work, ignore_errors=True)
    load = os.getloadavg()
    print(f"\nLoad average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}\n")
    small, large = sizes
    print(f"| step | at {small['records']:,}: wall, CPU, peak RSS, WAL | at {large['records']:,} | "
          "time per record, ratio | CPU per record, ratio | peak RSS, ratio |")
    print("|---|---|---|---:|---:|---:|")
    for step in ("undo", "redo"):
        def medians(size):
            return [statistics.median(run[index] for run in size[step]) for index in range(4)]
        a, b = medians(small), medians(large)
        scale = small["records"] / large["records"]
        print(f"| `{step}` | {a[0]:.2f} s, {a[1]:.2f} s, {a[2] / 1024:.1f} MiB, {a[3] / 1e6:.0f} MB | "
              f"{b[0]:.2f} s, {b[1]:.2f} s, {b[2] / 1024:.1f} MiB, {b[3] / 1e6:.0f} MB | "
              f"{b[0] / a[0] * scale:.2f}× | {b[1] / a[1] * scale:.2f}× | {b[2] / a[2]:.2f}× |")


if __name__ == "__main__":
    main()
