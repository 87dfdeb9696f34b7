#!/usr/bin/env python3
"""The point commands against their floors alone, whole processes in turn.

    python3 bench/point_pairs.py --store S --key G200000 --runs 21 new=.build/release/bowties
    python3 bench/point_pairs.py --store S --key G200000 base=/tmp/main-bowties new=.build/release/bowties

For each command (`show`, `count`, `history`, the completion of keys,
`--version`, `--help`, `wear`, `rate`, `favorite`), `runs` rounds; in each
round every binary named on the command line and the command's floor run
once, in turn, the first turn rotating from round to round. The floors
are `bench/harness.py`'s: the sqlite3 shell with the same SQL (the writes
with the connection settings bowties uses), and `bench/floor` (a static
Swift program that imports Foundation and prints a line) for
`--version` and `--help`. `rate` and `favorite` set, at every turn
whoever takes it, the value the tie does not have, so that each turn
writes. Prints the median of each and the ratios of the medians, with
the load average at the start and the end: on a shared machine only a
ratio from turns taken in the same rounds means anything.

S is a copy of the harness's store with tags and a wear history
(`bench/work/stores/bowties-tags-400000.sqlite` after a `bench/run
--records 400k` run): the writes change it. The harness measures the
same pairs with the same floors (`bench/run --records 400k --skip-slow
--runs 1 --short-runs 21 --skip-warnings --skip-formats`); this is that
part alone, for a session that changes the point commands, and it can
put two builds side by side in the same rounds.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

FLOOR = os.path.join(harness.WORK, "floor-build", "release", "floor")
COMMANDS = ["show", "count", "history", "completion", "--version", "--help", "wear", "rate", "favorite"]


def forms(name, store, key, floor):
    """The bowties arguments (after the binary) and the floor's command
    line, with the SQL of bench/harness.py."""
    def shell(sql, **values):
        return ["sqlite3", store, sql.format(key=key, **values)]
    if name == "show":
        return ["show", key, "--store", store], shell(harness.SQLITE_SHOW_SQL)
    if name == "count":
        return ["count", f"searchKey:={key}", "--store", store], shell(harness.SQLITE_COUNT_SQL)
    if name == "history":
        return ["history", key, "--store", store], shell(harness.SQLITE_HISTORY_SQL)
    if name == "completion":
        # The call bash's script makes at `bowties show --store S R<Tab>`
        # (bench/harness.py reads it from the script; it is this one).
        prefix = harness.COMPLETION_PREFIX
        return (["---completion", "show", "--", "positional@0", "4", "1", "bowties", "show", "--store", store, prefix],
                shell(harness.SQLITE_COMPLETION_SQL, prefix=prefix, limit=harness.COMPLETION_LIMIT))
    if name in ("--version", "--help"):
        return [name], [floor]
    if name == "wear":
        return ["wear", key, "--store", store], shell(harness.SQLITE_WEAR_SQL)
    raise ValueError(name)


def flipping(name, store, key, state):
    """rate and favorite: the turn's arguments and floor, for the value
    the tie does not have (state 0: set 4 / mark; 1: set 3 / unmark)."""
    if name == "rate":
        rating = "4" if state == 0 else "3"
        return (["rate", key, rating, "--store", store],
                ["sqlite3", store, harness.SQLITE_RATE_SQL.format(key=key, rating=rating)])
    return (["favorite", key, "--store", store] + ([] if state == 0 else ["--off"]),
            ["sqlite3", store, harness.SQLITE_FAVORITE_SQL.format(key=key, flag=1 - state)])


def timed(argv, environment):
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=environment)
    return time.perf_counter() - start


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binaries", nargs="+", metavar="NAME=PATH")
    parser.add_argument("--store", required=True)
    parser.add_argument("--key", default="G200000")
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--floor", default=FLOOR, help="bench/floor's binary (default: %(default)s)")
    parser.add_argument("--commands", default=",".join(COMMANDS))
    options = parser.parse_args(argv)
    binaries = dict(item.split("=", 1) for item in options.binaries)
    environment = dict(os.environ, SAP_SHELL="bash", SAP_SHELL_VERSION="5.2.15(1)-release")
    state = {"rate": 0, "favorite": 0}
    print("load average at the start: %.2f %.2f %.2f" % os.getloadavg(), flush=True)
    for name in options.commands.split(","):
        times = {key: [] for key in list(binaries) + ["floor"]}
        order = list(binaries) + ["floor"]
        for round_ in range(options.runs):
            first = round_ % len(order)
            for who in order[first:] + order[:first]:
                if name in state:
                    arguments, floor = flipping(name, options.store, options.key, state[name])
                    state[name] ^= 1
                else:
                    arguments, floor = forms(name, options.store, options.key, options.floor)
                argv = floor if who == "floor" else [binaries[who]] + arguments
                times[who].append(timed(argv, environment))
        medians = {who: statistics.median(values) * 1000 for who, values in times.items()}
        parts = " ".join(f"{who} {value:.2f} ms" for who, value in medians.items())
        ratios = " ".join(f"{who}/floor {medians[who] / medians['floor']:.2f}x" for who in binaries)
        if len(binaries) == 2:
            a, b = list(binaries)
            ratios += f" {b}/{a} {medians[b] / medians[a]:.2f}x"
        print(f"{name:11s} {parts}  {ratios}", flush=True)
    print("load average at the end: %.2f %.2f %.2f" % os.getloadavg(), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
