#!/usr/bin/env python3
"""The import (and optionally its undo) of generated JSON Lines by two
bowties binaries, in turns, at one or more sizes: time, CPU and peak
memory per record, and the largest the store's -wal and -journal grew.

    BASE=bowties-main BRANCH=.build/release/bowties \\
        python3 bench/scale_pairs.py 1M 3M --rounds 1 [--undo]

For a change to the import's store settings, measured beside the binary
without it in the same rounds (bench/results/scale-10m.md); the input is
the scale section's (`bench/reference/genjsonl.c`, the same bytes as
`gen.py N FILE --jsonl --no-images`), cached in bench/work/data. Each
import goes into a new store under bench/work/stores, removed after its
round. Every figure is one process under /usr/bin/time; the load average
is printed after each, since the machine may be shared.
"""

import argparse
import os
import shutil
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402


def measure(command, watched, input=None):
    """Runs `command` under /usr/bin/time (with `input` on its standard
    input); returns (wall, cpu, peak KiB, largest size of each watched
    file)."""
    largest = {path: 0 for path in watched}
    done = threading.Event()

    def watch():
        while not done.is_set():
            for path in watched:
                try:
                    largest[path] = max(largest[path], os.path.getsize(path))
                except OSError:
                    pass
            time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    start = time.perf_counter()
    result = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", *command], input=input,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    done.set()
    watcher.join()
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({result.returncode}):\n{result.stderr}")
    user, system, peak = result.stderr.strip().splitlines()[-1].split()
    return wall, float(user) + float(system), int(peak), largest


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sizes", nargs="+", type=harness.count_argument)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--undo", action="store_true", help="also undo each import")
    options = parser.parse_args()
    binaries = {"base": os.environ["BASE"], "branch": os.environ["BRANCH"]}
    folder = os.path.join(harness.WORK, "stores", "pairs")
    os.makedirs(folder, exist_ok=True)
    rows = []
    for round_number in range(options.rounds):
        for size in options.sizes:
            data = harness.jsonl_file(size)
            order = ["base", "branch"] if (round_number + options.sizes.index(size)) % 2 == 0 else ["branch", "base"]
            for name in order:
                store = os.path.join(folder, f"{name}-{size}.sqlite")
                for suffix in ("", "-wal", "-shm", "-journal", "-lock"):
                    if os.path.exists(store + suffix):
                        os.remove(store + suffix)
                watched = [store + "-wal", store + "-journal"]
                steps = [("import", [binaries[name], "import", data, "--store", store])]
                if options.undo:
                    steps.append(("undo", [binaries[name], "undo", "--store", store]))
                for step, command in steps:
                    wall, cpu, peak, largest = measure(command, watched)
                    load = os.getloadavg()[0]
                    row = (step, size, name, wall, cpu, peak, largest[watched[0]], largest[watched[1]], load)
                    rows.append(row)
                    print(f"{step:6} {size:>10,} {name:6} {wall:9.2f} s {cpu:9.2f} s CPU "
                          f"{wall / size * 1e6:7.2f} µs/rec {peak / 1024:6.1f} MiB "
                          f"WAL {largest[watched[0]] / 1e6:7.0f} MB journal {largest[watched[1]] / 1e6:5.1f} MB "
                          f"load {load:.1f}", flush=True)
                for suffix in ("", "-wal", "-shm", "-journal", "-lock"):
                    if os.path.exists(store + suffix):
                        os.remove(store + suffix)
                shutil.rmtree(os.path.join(folder, f".{name}-{size}_SUPPORT"), ignore_errors=True)


if __name__ == "__main__":
    main()
