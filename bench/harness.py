#!/usr/bin/env python3
"""Measures bowties against its alternatives and writes a markdown report.

Run through `bench/run`, which installs the tools, builds bowties, the C
reference and the Foundation alternative, then calls this script with the
paths in the environment (BOWTIES_BIN, IMPORT_C_BIN, FOUNDATION_BIN).
`bench/run --help` lists the options.

Every figure is the median of several runs. In each run the tools take
turns on the same file and the same machine, and the order of the turns
rotates from one run to the next, so a slow patch of the shared machine
does not land on one tool only.
"""

import argparse
import datetime
import filecmp
import os
import platform
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
WORK = os.path.join(BENCH, "work")
sys.path.insert(0, BENCH)
import gen  # noqa: E402  (the generator lives beside this script)

IMAGES = os.path.join(ROOT, "SampleData", "Images")
PHOTO_COUNT = 7  # red ... violet
EXTERNAL_PHOTO_COUNT = 2  # blue and violet are over 100 KiB

# The sqlite3 shell's export: every column bowties exports, unformatted
# (the colour as hex, the date as seconds, the tags unsorted), so it is the
# lower bound.
SQLITE_EXPORT_SQL = (
    "SELECT id, name, searchKey, rating, timesWorn, lastWorn, isFavorite, url,"
    " hex(tintColor), blob.byteCount, photoData_sha256,"
    " (SELECT group_concat(tag.name, ', ') FROM bowtie_tag JOIN tag ON tag.pk = bowtie_tag.tag_pk"
    " WHERE bowtie_tag.bowTie_id = bowtie.id) AS tags"
    " FROM bowtie LEFT JOIN blob ON blob.sha256 = photoData_sha256 ORDER BY bowtie.rowid"
)
SQLITE_SHOW_SQL = "SELECT * FROM bowtie WHERE searchKey='{key}'"

# The point commands at their floor (issue 21): each bowties command next
# to the sqlite3 shell running the SQL that does the same work on the same
# store ({key}: the tie in the middle of the file). The writes run with
# the settings of bowties' own connection: foreign keys on (GRDB's default,
# so the wear's link to its tie is checked) and `synchronous = NORMAL`
# (Catalog.swift); WAL is the store's own mode. The triggers then do for
# the shell what they do for bowties: a wear updates timesWorn and
# lastWorn. bowties also logs each change for `undo`; the shell does not,
# and that work is part of what the ratio measures.
SQLITE_WRITE_SETTINGS = "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL; "
SQLITE_WEAR_SQL = SQLITE_WRITE_SETTINGS + (
    "INSERT INTO wear (date, note, bowTie_id)"
    " SELECT (julianday('now') - 2440587.5) * 86400.0, NULL, id FROM bowtie WHERE searchKey='{key}'")
SQLITE_RATE_SQL = SQLITE_WRITE_SETTINGS + "UPDATE bowtie SET rating = {rating} WHERE searchKey='{key}'"
SQLITE_FAVORITE_SQL = SQLITE_WRITE_SETTINGS + "UPDATE bowtie SET isFavorite = {flag} WHERE searchKey='{key}'"
# `count searchKey:=KEY` compiles to `("bowtie"."searchKey" = ?)`: the
# UNIQUE index on searchKey (rating, the example, has no index).
SQLITE_COUNT_SQL = "SELECT count(*) FROM bowtie WHERE searchKey = '{key}'"
# `history KEY`'s wears, in its order (the tie and its baseline are one
# more indexed row).
SQLITE_HISTORY_SQL = ("SELECT date, note FROM wear WHERE bowTie_id = (SELECT id FROM bowtie WHERE searchKey='{key}')"
                      " ORDER BY date DESC, pk DESC")
# The completion of keys at `bowties show --store STORE R<Tab>`: the query
# of Catalog.searchKeys(startingWith:limit:), through the NOCASE index.
COMPLETION_PREFIX = "R"
COMPLETION_LIMIT = 200
SQLITE_COMPLETION_SQL = ("SELECT DISTINCT searchKey FROM bowtie WHERE searchKey LIKE '{prefix}%' ESCAPE '\\'"
                         " ORDER BY searchKey COLLATE NOCASE LIMIT {limit}")
# (bowties command, its floor, what the target calls it): at most
# POINT_LIMIT times the floor's median, whole process, in the same run.
POINT_LIMIT = 2.0
POINT_PAIRS = [
    ("bowties-show", "sqlite-show", "`show`"),
    ("bowties-wear", "sqlite-wear", "`wear`"),
    ("bowties-rate", "sqlite-rate", "`rate`"),
    ("bowties-favorite", "sqlite-favorite", "`favorite`"),
    ("bowties-count", "sqlite-count", "`count searchKey:=KEY`"),
    ("bowties-history", "sqlite-history", "`history`"),
    ("bowties-complete", "sqlite-complete", f"completion of keys (`show {COMPLETION_PREFIX}<Tab>`)"),
    ("bowties-version", "floor", "`--version`"),
    ("bowties-help", "floor", "`--help`"),
]

# The formats section's lower bounds, on the same rows and columns as
# bowties writes (unformatted, as SQLITE_EXPORT_SQL): JSON with the photo's
# place, the tags and the wear history as JSON arrays; the table with the
# columns `list` shows.
SQLITE_JSON_SQL = (
    "SELECT id, name, searchKey, rating, timesWorn, lastWorn, isFavorite, url,"
    " hex(tintColor) AS tintColor, blob.byteCount, photoData_sha256, blob.external,"
    " (SELECT json_group_array(tag.name) FROM bowtie_tag JOIN tag ON tag.pk = bowtie_tag.tag_pk"
    " WHERE bowtie_tag.bowTie_id = bowtie.id) AS tags,"
    " (SELECT json_group_array(json_object('date', date, 'note', note)) FROM"
    " (SELECT date, note FROM wear WHERE wear.bowTie_id = bowtie.id ORDER BY date, pk)) AS wears"
    " FROM bowtie LEFT JOIN blob ON blob.sha256 = photoData_sha256 ORDER BY bowtie.rowid"
)
SQLITE_TABLE_SQL = (
    "SELECT searchKey AS KEY, name AS NAME, rating AS RATING, timesWorn AS WORN,"
    " ifnull(date(lastWorn, 'unixepoch'), 'never') AS \"LAST WORN\","
    " CASE WHEN isFavorite THEN '*' ELSE '' END AS FAV, '#' || hex(tintColor) AS COLOUR"
    " FROM bowtie ORDER BY bowtie.rowid"
)

# The wear history given to the catalog before show and wear are timed:
# HISTORY_PER_TIE wears on 1 tie in HISTORY_EVERY, HISTORY_ON_KEY on the
# tie shown. Dates in 2025, spread by rowid; the triggers keep timesWorn
# and lastWorn. One transaction, from the sqlite3 shell, as a catalog that
# was used for years would have them.
HISTORY_EVERY = 10
HISTORY_PER_TIE = 3
HISTORY_ON_KEY = 50
HISTORY_SQL = """\
PRAGMA foreign_keys = ON;
BEGIN IMMEDIATE;
INSERT INTO wear (date, note, bowTie_id)
  WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < {per_tie})
  SELECT 1735689600 + ((bowtie.rowid * 37 + k * 101) % 365) * 86400 + k * 3600, NULL, id
  FROM bowtie, n WHERE bowtie.rowid % {every} = 0 ORDER BY bowtie.rowid, k;
INSERT INTO wear (date, note, bowTie_id)
  WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < {on_key})
  SELECT 1735689600 + k * 7 * 86400, 'bench wear ' || k, id FROM bowtie, n WHERE searchKey = '{key}';
COMMIT;
"""

# The warnings-memory pair: an import whose every photo is missing warns
# once per record; its peak RSS must stay within this of the same import
# with its photos (only the first warnings are kept, the rest counted).
WARNINGS_RECORDS = 400_000
WARNINGS_MEMORY_LIMIT_KIB = 5 * 1024

IMPORTERS = ["bowties", "c", "python", "foundation"]
# Measured at every size, in the same rotation, but not compared with C:
# the alternatives do not read tags (see bench/README.md).
EXTRA_IMPORTERS = ["bowties-nophotos", "bowties-tags"]
LABELS = {
    "bowties": "bowties",
    "bowties-nophotos": "bowties, file without imageName",
    "bowties-tags": "bowties, file with tags (not compared with C)",
    "c": "C reference (libxml2 reader + sqlite3)",
    "python": "Python plistlib + sqlite3",
    "foundation": "Swift Foundation PropertyListSerialization + GRDB",
    "bowties-show": "`bowties show KEY`",
    "sqlite-show": "`sqlite3 STORE \"SELECT * ... WHERE searchKey=KEY\"`",
    "bowties-wear": "`bowties wear KEY`",
    "sqlite-wear": "`sqlite3 STORE \"INSERT INTO wear ... WHERE searchKey=KEY\"`",
    "bowties-rate": "`bowties rate KEY 4`, then `3`",
    "sqlite-rate": "`sqlite3 STORE \"UPDATE bowtie SET rating = 4 WHERE searchKey=KEY\"`, then `= 3`",
    "bowties-favorite": "`bowties favorite KEY`, then `--off`",
    "sqlite-favorite": "`sqlite3 STORE \"UPDATE bowtie SET isFavorite = 1 WHERE searchKey=KEY\"`, then `= 0`",
    "bowties-count": "`bowties count searchKey:=KEY`",
    "sqlite-count": "`sqlite3 STORE \"SELECT count(*) FROM bowtie WHERE searchKey = KEY\"`",
    "bowties-history": "`bowties history KEY`",
    "sqlite-history": ("`sqlite3 STORE \"SELECT date, note FROM wear WHERE bowTie_id = (...KEY)"
                       " ORDER BY date DESC, pk DESC\"`"),
    "bowties-complete": ("`bowties ---completion show -- positional@0 4 1 bowties show --store STORE "
                         f"{COMPLETION_PREFIX}`"),
    "sqlite-complete": (f"`sqlite3 STORE \"SELECT DISTINCT searchKey ... LIKE '{COMPLETION_PREFIX}%' ..."
                        f" LIMIT {COMPLETION_LIMIT}\"`"),
    "bowties-version": "`bowties --version`",
    "bowties-help": "`bowties --help`",
    "floor": "`bench/floor`: static Swift, imports Foundation, prints one line",
    "bowties-export": "`bowties export --output F`",
    "sqlite-export": "`sqlite3 -csv -header STORE \"SELECT ...\" > F`",
    "python-export": "Python csv module (csv_export.py)",
    "fmt-csv": "`bowties export --format csv --output F`",
    "fmt-sqlite-csv": "`sqlite3 -csv -header` (SQLITE_EXPORT_SQL) `> F`",
    "fmt-json": "`bowties export --format json --output F`",
    "fmt-sqlite-json": "`sqlite3 -json` (SQLITE_JSON_SQL) `> F`",
    "fmt-jsonl": "`bowties export --format jsonl --output F`",
    "fmt-tsv": "`bowties export --format tsv --output F`",
    "fmt-plist": "`bowties export --format plist --output F`",
    "fmt-list": "`bowties list > F` (the table)",
    "fmt-sqlite-column": "`sqlite3 -column -header` (SQLITE_TABLE_SQL) `> F`",
    "fmt-head": "`bowties list \\| head -1`",
}
# The formats section: each bowties command, the sqlite3 shell's command
# it is compared with (None: no alternative), the limit on the ratio, and
# the file extension of its output.
FORMAT_COMMANDS = [
    ("fmt-csv", "fmt-sqlite-csv", 1.5, "csv"),
    ("fmt-json", "fmt-sqlite-json", 2.0, "json"),
    ("fmt-jsonl", None, None, "jsonl"),
    ("fmt-tsv", None, None, "tsv"),
    ("fmt-plist", None, None, "plist"),
    ("fmt-list", "fmt-sqlite-column", 2.0, "txt"),
]
# Input formats of the imports at each formats size: the export's files
# (photos by hash: the default), and a binary property list converted
# from the XML one by plistlib.
IMPORT_FORMATS = [
    ("plist", "XML property list"), ("bplist", "binary property list"), ("json", "JSON"),
    ("jsonl", "JSON Lines"), ("csv", "CSV"), ("tsv", "TSV"),
]
FORMATS_MEMORY_LIMIT_KIB = 40 * 1024

# The scale section (issue 21): a size above SCALE_FROM (`--records 10M`)
# is measured next to SCALE_BASE in the same run, step by step: the
# import of a generated JSON Lines file without photos, `list` of the
# whole catalog, exports in JSON Lines and as an XML property list, and
# `undo` of the import. Its time per record must stay within SCALE_LIMIT
# times the base's, and its peak RSS within SCALE_MEMORY_LIMIT of it.
SCALE_FROM = 1_000_000
SCALE_BASE = 1_000_000
SCALE_LIMIT = 1.2
SCALE_MEMORY_LIMIT = 1.10
# (name, label, what the step writes): run in this order at each size,
# each step on the store the import made.
SCALE_STEPS = [
    ("import", "`bowties import FILE.jsonl --store S`", None),
    ("list", "`bowties list --store S > /dev/null`", None),
    ("export-jsonl", "`bowties export --format jsonl --output F --store S`", "jsonl"),
    ("export-plist", "`bowties export --format plist --output F --store S`", "plist"),
    ("undo", "`bowties undo --store S` (of the import)", None),
]
HEAD_LIMIT_SECONDS = 0.3


def log(message):
    print(message, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- options

def count_argument(text):
    """100000, 100_000, 100k and 1M all work."""
    text = text.strip().lower().replace("_", "").replace(",", "")
    factor = 1
    if text.endswith("k"):
        factor, text = 1000, text[:-1]
    elif text.endswith("m"):
        factor, text = 1_000_000, text[:-1]
    value = int(float(text) * factor)
    if value < 7:
        raise argparse.ArgumentTypeError("at least 7 records (one per photo)")
    return value


def runs_at_argument(text):
    size, _, runs = text.partition("=")
    if not runs:
        raise argparse.ArgumentTypeError("expected SIZE=RUNS, e.g. 1M=1")
    return count_argument(size), int(runs)


def parse_options(argv):
    parser = argparse.ArgumentParser(
        prog="bench/run",
        description="Benchmark bowties against a C reference, Python and Foundation. "
        "Writes bench/results/latest.md.")
    parser.add_argument("--records", metavar="N", nargs="+", action="extend", type=count_argument,
                        help="sizes to measure (default: 100k 1M; 10k, 100k, 1M forms work). A size above "
                        "1M (10M) goes to the scale section: import, list, exports and undo next to the same "
                        "steps at 1M, in the same run; given alone, it skips the warnings pair and the "
                        "formats section unless they are asked for")
    parser.add_argument("--runs", metavar="K", type=int, default=3,
                        help="runs per import and export figure; the median is quoted (default 3)")
    parser.add_argument("--runs-at", metavar="SIZE=K", action="append", type=runs_at_argument,
                        default=[], help="runs at one size, e.g. --runs-at 1M=1")
    parser.add_argument("--short-runs", metavar="K", type=int, default=21,
                        help="runs for the point commands (show, wear, rate, favorite, count, history, "
                        "completion, --version, --help) and each of their floors (default 21)")
    parser.add_argument("--skip-slow", action="store_true",
                        help="skip the Python and Foundation imports above 100,000 records")
    parser.add_argument("--quick", action="store_true",
                        help="test the harness: 10,000 records, 1 run, 5 short runs")
    parser.add_argument("--output", metavar="FILE",
                        help="where to write the report (default bench/results/latest.md; "
                        "bench/work/quick.md with --quick, so a test run never replaces real figures)")
    parser.add_argument("--warnings-records", metavar="N", type=count_argument,
                        help="size of the warnings-memory pair: one import with the photos, one with none "
                        "found (default 400k; the smallest --records size with --quick)")
    parser.add_argument("--skip-warnings", action="store_true",
                        help="skip the warnings-memory pair")
    parser.add_argument("--scale-base", metavar="N", type=count_argument, default=SCALE_BASE,
                        help="the size the scale section compares each larger size with (default 1M; "
                        "e.g. --records 30k --scale-base 10k tests the section in seconds)")
    parser.add_argument("--strict", action="store_true", help="exit 2 when a target fails")
    parser.add_argument("--formats-records", metavar="N", nargs="+", action="extend", type=count_argument,
                        help="sizes of the formats section: every export format and list against the "
                        "sqlite3 shell, list | head -1, an import of each input format (default: 100k 1M; "
                        "10k with --quick)")
    parser.add_argument("--formats-only", action="store_true",
                        help="measure the formats section only (no imports against C, point commands, "
                        "CSV export against Python or warnings pair)")
    parser.add_argument("--skip-formats", action="store_true", help="skip the formats section")
    options = parser.parse_args(argv)
    if options.quick:
        options.records = options.records or [10_000]
        options.runs = 1
        options.short_runs = 5
    options.records = sorted(set(options.records or [100_000, 1_000_000]))
    # Sizes above SCALE_FROM (or --scale-base) get the scale section, not the comparisons
    # with C, Python and Foundation (Foundation alone would need 46 GB).
    options.scale_records = [count for count in options.records if count > options.scale_base]
    options.records = [count for count in options.records if count <= options.scale_base]
    if options.scale_records and not options.records:
        if options.formats_records is None:
            options.formats_records = []
        if options.warnings_records is None:
            options.skip_warnings = True
    if options.formats_records is None:
        options.formats_records = [10_000] if options.quick else [100_000, 1_000_000]
    options.formats_records = sorted(set(options.formats_records))
    if options.formats_only and options.skip_formats:
        parser.error("--formats-only and --skip-formats exclude each other")
    if options.formats_only:
        options.records, options.scale_records, options.skip_warnings = [], [], True
    if options.skip_formats:
        options.formats_records = []
    if options.warnings_records is None:
        options.warnings_records = options.records[0] if options.quick and options.records else WARNINGS_RECORDS
    if options.output is None:
        options.output = os.path.join(WORK, "quick.md") if options.quick else os.path.join(BENCH, "results", "latest.md")
    if options.runs < 1 or options.short_runs < 1:
        parser.error("runs must be at least 1")
    options.runs_at = dict(options.runs_at)
    return options


# ---------------------------------------------------------------- measuring

class Result:
    """One command's runs: wall seconds and peak RSS in KiB, or a failure."""

    def __init__(self):
        self.walls, self.rss, self.cpus, self.failure, self.skipped = [], [], [], None, None

    @property
    def ok(self):
        return bool(self.walls) and self.failure is None

    @property
    def wall(self):
        return statistics.median(self.walls) if self.ok else None

    @property
    def peak(self):
        return statistics.median(self.rss) if self.ok and self.rss else None

    @property
    def cpu(self):
        return statistics.median(self.cpus) if self.ok and self.cpus else None


class Run:
    """One process: wall seconds, peak RSS KiB and user+sys CPU seconds
    (None when not measured), exit status, standard error."""

    def __init__(self, wall, rss, cpu, status, stderr):
        self.wall, self.rss, self.cpu, self.status, self.stderr = wall, rss, cpu, status, stderr


def spawn(command, stdout_path=os.devnull, environment=None):
    """Runs `command` and returns its Run, without RSS or CPU time.

    `environment`: variables to add to this process's for the command.

    posix_spawn + wait4: the wall clock covers the whole process. wait4's
    peak RSS is not returned: a child spawned from this Python process
    inherits the parent's high-water mark (vfork and fork both carry it
    across exec), so only /usr/bin/time, a small parent, gives a clean one.
    """
    with tempfile.TemporaryFile() as errors:
        actions = [
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, stdout_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
            (os.POSIX_SPAWN_DUP2, errors.fileno(), 2),
        ]
        start = time.perf_counter()
        pid = os.posix_spawnp(command[0], command, dict(os.environ, **(environment or {})),
                              file_actions=actions)
        _, status, _ = os.wait4(pid, 0)
        wall = time.perf_counter() - start
        errors.seek(0)
        stderr = errors.read().decode("utf-8", "replace")
    return Run(wall, None, None, os.waitstatus_to_exitcode(status), stderr)


def timed(command, stdout_path=os.devnull, environment=None):
    """Runs `command` under /usr/bin/time -v and returns its Run.

    The RSS and the CPU time (user + system) are /usr/bin/time's; the wall
    time is our own clock around it (finer than time's 10 ms).
    """
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        run = spawn(["/usr/bin/time", "-v", "-o", report.name] + command, stdout_path, environment)
        text = report.read()
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    user = re.search(r"User time \(seconds\): ([\d.]+)", text)
    system = re.search(r"System time \(seconds\): ([\d.]+)", text)
    if not (rss and user and system):
        return Run(run.wall, None, None, run.status or 1, run.stderr + text)
    return Run(run.wall, int(rss.group(1)), float(user.group(1)) + float(system.group(1)),
               run.status, run.stderr)


def record(result, measured, what, wall=True, rss=True):
    """Adds one run's wall time and/or peak RSS to `result`; False on failure."""
    if measured.status != 0 or (rss and measured.rss is None):
        tail = " | ".join(measured.stderr.strip().splitlines()[-3:])
        result.failure = f"exit {measured.status}: {tail}"
        log(f"    {what}: FAILED ({result.failure})")
        return False
    if wall:
        result.walls.append(measured.wall)
        if measured.cpu is not None:
            result.cpus.append(measured.cpu)
    if rss:
        result.rss.append(measured.rss)
    return True


def measure_short(results, commands, runs, environments=None):
    """Short commands, interleaved: wall from `runs` plain runs each.

    In each run every command takes its turn, and the first turn rotates
    from one run to the next, so that no command always follows the same
    one. A command is a list, or a function that returns the next turn's
    list (a pair that changes something at every turn, whichever side it
    is: favourite on, then off). `environments`: variables to add, by name.

    The first few runs go through /usr/bin/time -v for the peak RSS only
    (they also warm the page cache); they are not timed, because time's
    own fork and exec would add a millisecond to a figure of a few.
    """
    names = list(commands)
    for name in names:
        results[name] = Result()

    def turn(name, measure):
        command = commands[name]() if callable(commands[name]) else commands[name]
        return measure(command, environment=(environments or {}).get(name))

    for run in range(min(3, runs)):
        for name in names[run % len(names):] + names[:run % len(names)]:
            if not results[name].failure:
                record(results[name], turn(name, timed), name, wall=False)
    for run in range(runs):
        for name in names[run % len(names):] + names[:run % len(names)]:
            if not results[name].failure:
                record(results[name], turn(name, spawn), name, rss=False)


def turns(result):
    """How many times a command of measure_short ran and exited 0."""
    return len(result.walls) + len(result.rss)


def remove_store(path):
    """Deletes a store, its WAL, shared memory, journal and photo folder."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    folder, name = os.path.split(path)
    support = os.path.join(folder, "." + os.path.splitext(name)[0] + "_SUPPORT")
    if os.path.isdir(support):
        # Photo files are read-only (0444); their folder is not.
        shutil.rmtree(support)


def external_folder(store):
    folder, name = os.path.split(store)
    return os.path.join(folder, "." + os.path.splitext(name)[0] + "_SUPPORT", "_EXTERNAL_DATA")


def query(store, sql, *arguments):
    connection = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        return connection.execute(sql, arguments).fetchone()
    finally:
        connection.close()


def tag_counts(store):
    """(tagged ties, tag links, tags) in a store, as gen.tag_summary counts them."""
    return query(store, "SELECT (SELECT count(DISTINCT bowTie_id) FROM bowtie_tag),"
                 " (SELECT count(*) FROM bowtie_tag), (SELECT count(*) FROM tag)")


def add_history(store, key, count, checks):
    """Gives the catalog its wear history (HISTORY_SQL) and checks the counts.

    The sqlite3 shell inserts every wear in one transaction; bowties'
    triggers keep timesWorn and lastWorn. Then timesWorn must be the
    baseline plus the wears, for the tie shown and for every other one.
    Fills checks["history"]; returns False when the shell failed.
    """
    before = query(store, "SELECT timesWorn FROM bowtie WHERE searchKey = ?", key)[0]
    sql = HISTORY_SQL.format(per_tie=HISTORY_PER_TIE, every=HISTORY_EVERY, on_key=HISTORY_ON_KEY, key=key)
    start = time.perf_counter()
    shell = subprocess.run(["sqlite3", "-bail", store], input=sql, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if shell.returncode != 0:
        failure = f"sqlite3 exit {shell.returncode}: {shell.stderr.strip()[:200]}"
        checks["history"] = {"failure": failure}
        log(f"  history: FAILED ({failure})")
        return False
    rows, ties = query(store, "SELECT count(*), count(DISTINCT bowTie_id) FROM wear")
    after, baseline, key_wears = query(
        store, "SELECT timesWorn, timesWorn_baseline, (SELECT count(*) FROM wear WHERE bowTie_id = id)"
        " FROM bowtie WHERE searchKey = ?", key)
    # Every tie: timesWorn = baseline + wears, lastWorn = the later of
    # the baseline and the last wear.
    wrong = query(store, """
        SELECT count(*) FROM bowtie LEFT JOIN (
            SELECT bowTie_id, count(*) AS wears, max(date) AS last FROM wear GROUP BY bowTie_id
        ) AS history ON history.bowTie_id = bowtie.id
        WHERE timesWorn IS NOT timesWorn_baseline + coalesce(wears, 0)
           OR lastWorn IS NOT coalesce(max(lastWorn_baseline, last), lastWorn_baseline, last)""")[0]
    checks["history"] = {
        "rows": rows, "expected_rows": HISTORY_PER_TIE * (count // HISTORY_EVERY) + HISTORY_ON_KEY,
        "ties": ties, "every_ties": count // HISTORY_EVERY, "key_wears": key_wears,
        "before": before, "after": after, "baseline": baseline, "wrong": wrong, "seconds": elapsed,
        "failure": None,
    }
    log(f"  history: {rows:,} wears on {ties:,} ties in {elapsed:.2f} s; {key}: timesWorn {before} -> "
        f"{after} (baseline {baseline} + {key_wears}); ties with wrong counts or dates: {wrong}")
    return True


def history_holds(history):
    """True when the history is as inserted and the triggers counted it."""
    return (history is not None and history["failure"] is None
            and history["rows"] == history["expected_rows"]
            and history["after"] == history["baseline"] + history["key_wears"]
            and history["after"] == history["before"] + history["key_wears"]
            and history["wrong"] == 0)


def warm(path):
    """Reads a file once so that every tool finds it in the page cache."""
    with open(path, "rb") as file:
        while file.read(1 << 24):
            pass


# ---------------------------------------------------------------- data

def data_file(count, images, tags=False):
    folder = os.path.join(WORK, "data")
    os.makedirs(folder, exist_ok=True)
    name = f"bowties-g{gen.VERSION}-{count}{'' if images else '-nophotos'}{'-tags' if tags else ''}.plist"
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        log(f"  generating {name} ...")
        start = time.perf_counter()
        gen.generate(count, path, images=images, tags=tags)
        log(f"  generated {os.path.getsize(path) / 1e6:.0f} MB in {time.perf_counter() - start:.1f} s")
    return path


# ---------------------------------------------------------------- one size

def measure_size(count, options, binaries):
    """All figures at one size; returns a dict of Results and checks."""
    runs = options.runs_at.get(count, options.runs)
    photo_size = count <= 100_000 or count == options.records[0]
    plist = data_file(count, images=True)
    plain = data_file(count, images=False) if photo_size else None
    tagged = data_file(count, images=True, tags=True)
    figures = {"count": count, "runs": runs, "bytes": os.path.getsize(plist),
               "tagged_bytes": os.path.getsize(tagged), "checks": {}}
    stores = os.path.join(WORK, "stores")
    outputs = os.path.join(WORK, "out")
    os.makedirs(stores, exist_ok=True)
    os.makedirs(outputs, exist_ok=True)

    importers = list(IMPORTERS)
    if photo_size:
        importers.append("bowties-nophotos")
    importers.append("bowties-tags")
    for name in importers:
        figures[name] = Result()
    if options.skip_slow and count > 100_000:
        for name in ("python", "foundation"):
            figures[name].skipped = "skipped (--skip-slow)"
            importers.remove(name)

    def import_command(name, store):
        if name == "bowties":
            return [binaries["bowties"], "import", plist, "--images", IMAGES, "--store", store]
        if name == "bowties-nophotos":
            return [binaries["bowties"], "import", plain, "--images", IMAGES, "--store", store]
        if name == "bowties-tags":
            return [binaries["bowties"], "import", tagged, "--images", IMAGES, "--store", store]
        if name == "c":
            return [binaries["c"], plist, store]
        if name == "python":
            return [sys.executable, os.path.join(BENCH, "alternatives", "plistlib_import.py"), plist, store]
        return [binaries["foundation"], plist, store]

    # Imports: every tool on the same warm file, in rotating order.
    warm(plist)
    if plain:
        warm(plain)
    warm(tagged)
    expected_tags = figures["expected_tags"] = gen.tag_summary(count)  # (tagged ties, links, names)
    for run in range(runs):
        order = importers[run % len(importers):] + importers[:run % len(importers)]
        for name in order:
            if figures[name].failure:
                continue
            store = os.path.join(stores, f"{name}-{count}.sqlite")
            remove_store(store)
            ok = record(figures[name], timed(import_command(name, store)), f"import {name}")
            if ok:
                rows = query(store, "SELECT count(*) FROM bowtie")[0]
                if rows != count:
                    figures[name].failure = f"stored {rows} rows, expected {count}"
                    log(f"    import {name}: FAILED ({figures[name].failure})")
                    continue
                if name == "bowties-tags":
                    stored = tag_counts(store)
                    figures["checks"]["tags"] = (stored, expected_tags)
                    if stored != expected_tags:
                        figures[name].failure = (f"stored {stored[0]} tagged ties, {stored[1]} links, "
                                                 f"{stored[2]} tags; expected {expected_tags}")
                        log(f"    import {name}: FAILED ({figures[name].failure})")
                        continue
                log(f"  {count:>9,} import {name:<17} run {run + 1}/{runs}: "
                    f"{figures[name].walls[-1]:7.2f} s {figures[name].rss[-1] / 1024:7.1f} MiB")
    for name in importers:
        if name not in ("bowties", "bowties-tags"):
            remove_store(os.path.join(stores, f"{name}-{count}.sqlite"))

    store = os.path.join(stores, f"bowties-{count}.sqlite")
    if figures["bowties"].ok:
        # Photos: each of the seven stored once, two of them in files.
        blobs = query(store, "SELECT count(*) FROM blob")[0]
        folder = external_folder(store)
        files = len(os.listdir(folder)) if os.path.isdir(folder) else 0
        figures["checks"].update(blobs=blobs, external_files=files)
        log(f"  photos: blob rows {blobs} (expect {PHOTO_COUNT}), "
            f"files in {os.path.relpath(folder, ROOT)}: {files} (expect {EXTERNAL_PHOTO_COUNT})")

    # Undo of the import just measured, on its store (issue 11: at most
    # twice the import's time). Once per size: each undo needs a fresh
    # import. Only when the tagged store can serve the later figures.
    if figures["bowties"].ok and figures["bowties-tags"].ok:
        figures["bowties-undo"] = Result()
        if record(figures["bowties-undo"], timed([binaries["bowties"], "undo", "--store", store]), "undo import"):
            left = query(store, "SELECT count(*) FROM bowtie")[0]
            if left != 0:
                figures["bowties-undo"].failure = f"{left} rows left after undo"
            log(f"  {count:>9,} undo import           : {figures['bowties-undo'].walls[-1]:7.2f} s "
                f"{figures['bowties-undo'].rss[-1] / 1024:7.1f} MiB")

    # Show, wear and export run on the catalog as it is used: the tagged
    # import, then a wear history. The store without tags is the fallback
    # when the tagged import failed; the report says which it was.
    tags_store = os.path.join(stores, f"bowties-tags-{count}.sqlite")
    if figures["bowties-tags"].ok:
        remove_store(store)
        store = tags_store
        figures["catalog"] = "tags"
    elif figures["bowties"].ok:
        remove_store(tags_store)
        figures["catalog"] = "plain"
    else:
        return figures

    # show and the sqlite3 shell's point query, interleaved. The key is in
    # the middle of the file.
    key = gen.search_key(count // 2)
    figures["key"] = key
    figures["key_tags"] = query(store, "SELECT count(*) FROM bowtie_tag JOIN bowtie ON id = bowTie_id "
                                "WHERE searchKey = ?", key)[0]
    if add_history(store, key, count, figures["checks"]):
        measure_point_commands(figures, store, key, options, binaries)
    else:
        # Figures without the history would answer another question.
        for name in {name for pair in POINT_PAIRS for name in pair[:2]}:
            figures[name] = Result()
            figures[name].failure = "no wear history: " + figures["checks"]["history"]["failure"]
    measure_exports(figures, store, runs, binaries)
    return figures


def measure_point_commands(figures, store, key, options, binaries):
    """The point commands next to their floors, on a store with its history.

    Each pair is measured on its own, interleaved (measure_short): show,
    count, history and the completion of keys next to the sqlite3 shell's
    query, `--version` and `--help` next to bench/floor, then the writes:
    wear, rate and favorite next to the shell's statement. Before the
    reads are timed, each pair's answers are compared once; after the
    writes, the store must hold every wear of both sides.
    """
    count = figures["count"]
    bowties = binaries["bowties"]
    checks = figures["checks"]
    runs = options.short_runs

    def sqlite(sql, **values):
        return ["sqlite3", store, sql.format(key=key, **values)]

    def logged(names):
        for name in names:
            result = figures[name]
            if result.ok:
                log(f"  {count:>9,} {name:<17} median {result.wall * 1000:6.1f} ms of {runs}, "
                    f"{result.peak / 1024:.1f} MiB")

    completion, environment, offered = completion_call(bowties, store, COMPLETION_PREFIX)
    if not isinstance(completion, str):
        figures["completion_call"] = ["bowties"] + [
            "STORE" if word == store else "bowties" if word == bowties else word for word in completion[1:]]
    completion_sql = sqlite(SQLITE_COMPLETION_SQL, prefix=COMPLETION_PREFIX, limit=COMPLETION_LIMIT)
    reads = [
        ("bowties-show", [bowties, "show", key, "--store", store], "sqlite-show", sqlite(SQLITE_SHOW_SQL)),
        ("bowties-count", [bowties, "count", f"searchKey:={key}", "--store", store],
         "sqlite-count", sqlite(SQLITE_COUNT_SQL)),
        ("bowties-history", [bowties, "history", key, "--store", store], "sqlite-history", sqlite(SQLITE_HISTORY_SQL)),
        ("bowties-complete", completion, "sqlite-complete", completion_sql),
    ]
    answers = checks["answers"] = {}
    for mine, command, theirs, query_ in reads:
        if isinstance(command, str):
            # The completion's call could not be read from the script.
            for name in (mine, theirs):
                figures[name] = Result()
                figures[name].failure = command
            log(f"    {mine}: FAILED ({command})")
            continue
        if mine != "bowties-show":  # show's text and the shell's row are not comparable
            answers[mine] = same_answer(mine, command, query_,
                                        environment if mine == "bowties-complete" else None, offered)
        measure_short(figures, {mine: command, theirs: query_}, runs,
                      {mine: environment} if mine == "bowties-complete" else None)
        logged((mine, theirs))
    for name, answer in answers.items():
        if answer is not None:
            log(f"    {name}: WRONG ANSWER ({answer})")

    measure_short(figures, {"bowties-version": [bowties, "--version"], "bowties-help": [bowties, "--help"],
                            "floor": [binaries["floor"]]}, runs)
    logged(("bowties-version", "bowties-help", "floor"))

    # wear: each turn of either side is one more wear of the same tie.
    def worn():
        return query(store, "SELECT timesWorn, (SELECT count(*) FROM wear WHERE bowTie_id = id)"
                     " FROM bowtie WHERE searchKey = ?", key)

    times_before, rows_before = worn()
    measure_short(figures, {"bowties-wear": [bowties, "wear", key, "--store", store],
                            "sqlite-wear": sqlite(SQLITE_WEAR_SQL)}, runs)
    times_after, rows_after = worn()
    wears = turns(figures["bowties-wear"]) + turns(figures["sqlite-wear"])
    checks["wear_counted"] = (times_after - times_before, wears)
    checks["wear_rows"] = (rows_after - rows_before, wears)
    logged(("bowties-wear", "sqlite-wear"))
    log(f"  {count:>9,} wears: timesWorn {times_before} -> {times_after}, rows {rows_before} -> {rows_after}, "
        f"for {wears} turns")

    # rate and favorite: every turn, whichever side takes it, changes the
    # tie (the rating 4, 3, 4, ...; the mark on, off, on, ...). With one
    # value the shell would write nothing after the first turn (SQLite
    # leaves a page clean when a row is rewritten unchanged), while bowties
    # still opens its write transaction and logs for undo.
    def alternate(column, values, mine, theirs):
        current = query(store, f"SELECT {column} FROM bowtie WHERE searchKey = ?", key)[0]
        turn = [0 if current != values[0] else 1]

        def side(make):
            def command():
                value = values[turn[0] % len(values)]
                turn[0] += 1
                return make(value)
            return command

        measure_short(figures, {mine[0]: side(mine[1]), theirs[0]: side(theirs[1])}, runs)
        logged((mine[0], theirs[0]))
        stored = query(store, f"SELECT {column} FROM bowtie WHERE searchKey = ?", key)[0]
        return stored, values[(turn[0] - 1) % len(values)]

    checks["rating"] = alternate(
        "rating", (4, 3),
        ("bowties-rate", lambda rating: [bowties, "rate", key, str(rating), "--store", store]),
        ("sqlite-rate", lambda rating: sqlite(SQLITE_RATE_SQL, rating=rating)))
    checks["favorite"] = alternate(
        "isFavorite", (1, 0),
        ("bowties-favorite", lambda flag: [bowties, "favorite", key, "--store", store] + ([] if flag else ["--off"])),
        ("sqlite-favorite", lambda flag: sqlite(SQLITE_FAVORITE_SQL, flag=flag)))


def same_answer(name, command, sqlite_command, environment, offered):
    """Runs a read of bowties and its sqlite3 query once each; None when
    they gave the same answer, else what differs.

    count: the same number. history: one line per wear on both sides
    (bowties adds the tie's title and a summary). The completion: the
    same keys in the same order, and bash offered them all.
    """
    with tempfile.TemporaryDirectory() as folder:
        mine, theirs = os.path.join(folder, "bowties"), os.path.join(folder, "sqlite3")
        runs = spawn(command, mine, environment), spawn(sqlite_command, theirs)
        if any(run.status != 0 for run in runs):
            return "exit " + ", ".join(str(run.status) for run in runs)
        with open(mine, "rb") as file:
            mine = file.read().decode("utf-8", "replace").splitlines()
        with open(theirs, "rb") as file:
            theirs = file.read().decode("utf-8", "replace").splitlines()
    if name == "bowties-count":
        return None if mine == theirs else f"bowties {mine}, sqlite3 {theirs}"
    if name == "bowties-history":
        return None if len(mine) == len(theirs) + 2 else f"bowties {len(mine) - 2} wears, sqlite3 {len(theirs)}"
    if name == "bowties-complete":
        if mine != theirs:
            return f"bowties offered {len(mine)} keys, sqlite3 {len(theirs)}, or in another order"
        return None if offered == theirs else f"bash offered {len(offered)} of {len(theirs)} keys"
    return None


def completion_call(bowties, store, prefix):
    """The call bash's completion makes at `bowties show --store STORE
    PREFIX<Tab>`: (command, environment, what bash offered), or (reason,
    None, None) when it cannot be read.

    Read from the script itself: bash sources `bowties
    --generate-completion-script bash` and completes that line, with the
    first word a wrapper that writes down its arguments and the SAP_
    variables ArgumentParser's script exports, then runs bowties. The
    wrapper's path in the arguments becomes bowties' own.
    """
    with tempfile.TemporaryDirectory() as folder:
        script = os.path.join(folder, "completion.bash")
        wrapper = os.path.join(folder, "bowties")
        arguments = os.path.join(folder, "arguments")
        variables = os.path.join(folder, "variables")
        with open(script, "w", encoding="utf-8") as file:
            made = subprocess.run([bowties, "--generate-completion-script", "bash"], stdout=file,
                                  stderr=subprocess.PIPE, text=True, check=False)
        if made.returncode != 0:
            return f"--generate-completion-script bash: exit {made.returncode}", None, None
        with open(wrapper, "w", encoding="utf-8") as file:
            file.write("#!/bin/bash\n"
                       f"printf '%s\\0' \"$@\" >> '{arguments}'\n"
                       f"env | grep '^SAP_' > '{variables}'\n"
                       f"exec '{bowties}' \"$@\"\n")
        os.chmod(wrapper, 0o755)
        tab = ("source \"$1\"\n"
               "COMP_WORDS=(\"$2\" show --store \"$3\" \"$4\"); COMP_CWORD=4\n"
               "COMP_LINE=\"${COMP_WORDS[*]}\"; COMP_POINT=${#COMP_LINE}\n"
               "_bowties \"$2\" \"$4\" \"$3\"\n"
               "printf '%s\\n' \"${COMPREPLY[@]}\"\n")
        shell = subprocess.run(["bash", "-c", tab, "bash", script, wrapper, store, prefix],
                               capture_output=True, text=True, check=False)
        if shell.returncode != 0 or not os.path.exists(arguments):
            return (f"bash completion: exit {shell.returncode}, no call to bowties: "
                    f"{shell.stderr.strip()[:120]}"), None, None
        with open(arguments, encoding="utf-8") as file:
            calls = file.read().split("\0")[:-1]
        with open(variables, encoding="utf-8") as file:
            environment = dict(line.split("=", 1) for line in file.read().splitlines() if "=" in line)
    if calls.count("---completion") != 1 or calls[0] != "---completion":
        return f"bash completion: expected one `---completion` call, got {calls[:12]}", None, None
    command = [bowties] + [bowties if word == wrapper else word for word in calls]
    return command, environment, shell.stdout.splitlines()


def measure_exports(figures, store, runs, binaries):
    """Exports, interleaved and rotating as the imports."""
    count = figures["count"]
    outputs = os.path.join(WORK, "out")
    exports = {
        "bowties-export": ([binaries["bowties"], "export", "--output", "{out}", "--store", store], False),
        "sqlite-export": (["sqlite3", "-csv", "-header", store, SQLITE_EXPORT_SQL], True),
        "python-export": ([sys.executable, os.path.join(BENCH, "alternatives", "csv_export.py"),
                           store, "{out}"], False),
    }
    names = list(exports)
    for name in names:
        figures[name] = Result()
    for run in range(runs):
        for name in names[run % 3:] + names[:run % 3]:
            if figures[name].failure:
                continue
            command, to_stdout = exports[name]
            out = os.path.join(outputs, f"{name}-{count}.csv")
            if os.path.exists(out):
                os.remove(out)
            command = [part.replace("{out}", out) for part in command]
            if record(figures[name], timed(command, out if to_stdout else os.devnull), name):
                log(f"  {count:>9,} {name:<17} run {run + 1}/{runs}: "
                    f"{figures[name].walls[-1]:7.2f} s {figures[name].rss[-1] / 1024:7.1f} MiB")
    mine = os.path.join(outputs, f"bowties-export-{count}.csv")
    theirs = os.path.join(outputs, f"python-export-{count}.csv")
    if figures["bowties-export"].ok and figures["python-export"].ok:
        figures["checks"]["same_csv"] = filecmp.cmp(mine, theirs, shallow=False)
    for name in names:
        out = os.path.join(outputs, f"{name}-{count}.csv")
        if os.path.exists(out):
            os.remove(out)


# ---------------------------------------------------------------- scale

def jsonl_file(count):
    """The generated JSON Lines file of `count` ties without photos,
    cached as the property lists are (streamed: a few MB whatever the
    size)."""
    folder = os.path.join(WORK, "data")
    os.makedirs(folder, exist_ok=True)
    name = f"bowties-g{gen.VERSION}-{count}-nophotos.jsonl"
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        log(f"  generating {name} ...")
        start = time.perf_counter()
        generator = jsonl_generator()
        if generator:
            subprocess.run([generator, str(count), path], check=True)
        else:
            gen.generate(count, path, images=False, jsonl=True)
        log(f"  generated {os.path.getsize(path) / 1e6:.0f} MB in {time.perf_counter() - start:.1f} s"
            f" ({'bench/reference/genjsonl.c' if generator else 'gen.py'})")
    return path


def jsonl_generator():
    """bench/reference/genjsonl.c built into bench/work/bin: gen.py's
    JSON Lines without photos, the same bytes, in a fifth of a minute of
    CPU at 10M instead of a minute and a half; None without gcc (then
    gen.py writes the file)."""
    if not shutil.which("gcc"):
        return None
    source = os.path.join(BENCH, "reference", "genjsonl.c")
    binary = os.path.join(WORK, "bin", "genjsonl")
    if not os.path.exists(binary) or os.path.getmtime(binary) < os.path.getmtime(source):
        os.makedirs(os.path.dirname(binary), exist_ok=True)
        subprocess.run(["gcc", "-O2", "-o", binary, source], check=True)
    return binary


def store_bytes(store):
    """The bytes of a store, its WAL and its shared memory, on disk now."""
    return sum(os.path.getsize(store + suffix) for suffix in ("", "-wal", "-shm")
               if os.path.exists(store + suffix))


def timed_watching(command, wal, stdout_path=os.devnull):
    """timed(), and the largest size the file `wal` reached meanwhile
    (polled every 0.2 s): the WAL of a long transaction."""
    import threading
    largest = [0]
    done = threading.Event()

    def watch():
        while not done.wait(0.2):
            try:
                largest[0] = max(largest[0], os.path.getsize(wal))
            except OSError:
                pass

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        run = timed(command, stdout_path)
    finally:
        done.set()
        watcher.join()
    return run, largest[0]


def measure_scale(count, options, binaries):
    """The scale section at one size: each step of SCALE_STEPS at
    `options.scale_base` and at `count`, side by side in one run.

    Each run imports both files into new stores, then takes each step at
    both sizes in turn (which size goes first alternates from step to
    step and from run to run), ending with the undo of the import. Every
    step is checked: the rows stored, the lines written, nothing left
    after the undo. Also kept: each store's size after the import and the
    largest its WAL grew during each step.
    """
    base = options.scale_base
    runs = options.runs_at.get(count, 1)
    sizes = [base, count]
    bowties = binaries["bowties"]
    stores = os.path.join(WORK, "stores")
    outputs = os.path.join(WORK, "out")
    os.makedirs(stores, exist_ok=True)
    os.makedirs(outputs, exist_ok=True)
    files = {size: jsonl_file(size) for size in sizes}
    figures = {"count": count, "base": base, "runs": runs, "checks": {}, "wal": {}, "store_bytes": {},
               "bytes": {size: os.path.getsize(files[size]) for size in sizes}, "outputs": {},
               "loads": [os.getloadavg()[0]]}
    for name, _, _ in SCALE_STEPS:
        for size in sizes:
            figures[(name, size)] = Result()

    def command(name, size, store, out):
        if name == "import":
            return [bowties, "import", files[size], "--store", store]
        if name == "list":
            return [bowties, "list", "--store", store]
        if name == "undo":
            return [bowties, "undo", "--store", store]
        extension = name.split("-", 1)[1]
        return [bowties, "export", "--format", extension, "--output", out, "--store", store]

    for run in range(runs):
        for size in sizes:
            warm(files[size])
        for number, (name, _, extension) in enumerate(SCALE_STEPS):
            order = sizes if (run + number) % 2 == 0 else sizes[::-1]
            for size in order:
                result = figures[(name, size)]
                store = os.path.join(stores, f"scale-{size}.sqlite")
                if name == "import":
                    remove_store(store)
                elif not figures[("import", size)].ok:
                    continue
                if result.failure:
                    continue
                out = os.path.join(outputs, f"scale-{size}.{extension}") if extension else os.devnull
                if extension and os.path.exists(out):
                    os.remove(out)
                measured, wal = timed_watching(command(name, size, store, out), store + "-wal")
                if not record(result, measured, f"{name} {size:,}"):
                    continue
                figures["wal"][(name, size)] = max(wal, figures["wal"].get((name, size), 0))
                if name == "import":
                    rows = query(store, "SELECT count(*) FROM bowtie")[0]
                    figures["store_bytes"][size] = store_bytes(store)
                    if rows != size:
                        result.failure = f"stored {rows:,} rows, expected {size:,}"
                elif name == "undo":
                    left = query(store, "SELECT count(*) FROM bowtie")[0]
                    if left:
                        result.failure = f"{left:,} rows left after undo"
                elif extension:
                    figures["outputs"][(name, size)] = os.path.getsize(out)
                    if extension == "jsonl":
                        lines = count_lines(out)
                        if lines != size:
                            result.failure = f"wrote {lines:,} lines, expected {size:,}"
                    os.remove(out)
                figures["loads"].append(os.getloadavg()[0])
                if result.failure:
                    log(f"    {name} {size:,}: FAILED ({result.failure})")
                    continue
                log(f"  {size:>10,} {name:<13} run {run + 1}/{runs}: {result.walls[-1]:8.2f} s "
                    f"{result.walls[-1] / size * 1e6:6.2f} µs/record {result.rss[-1] / 1024:7.1f} MiB"
                    f"{f', WAL up to {wal / 1e6:,.0f} MB' if wal else ''}")
        for size in sizes:
            remove_store(os.path.join(stores, f"scale-{size}.sqlite"))
    return figures


def per_record(result, size):
    """Microseconds per record of a result's median, or None."""
    return None if result.wall is None else result.wall / size * 1e6


def scale_report(figures):
    """The markdown of one size of the scale section."""
    count, base, runs = figures["count"], figures["base"], figures["runs"]
    lines = [f"## Scale: {count:,} records next to {base:,} ({runs} run(s) each, in the same run)", "",
             f"Generated JSON Lines without photos (`bench/gen.py N FILE --jsonl --no-images`: "
             f"{figures['bytes'][base] / 1e6:,.0f} MB and {figures['bytes'][count] / 1e6:,.0f} MB), each imported "
             "into a new catalog; then on that catalog `list` (the whole table, to /dev/null), the exports, and "
             "the undo of the import. The two sizes take each step in turn, alternating which goes first. "
             "Time per record = wall ÷ records; the ratio is the larger size's time per record ÷ the base's.", "",
             f"| step | wall at {base:,} | µs/record | peak RSS | wall at {count:,} | µs/record | peak RSS "
             "| per record, ratio | CPU per record, ratio | peak RSS, ratio |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, label, _ in SCALE_STEPS:
        small, large = figures[(name, base)], figures[(name, count)]

        def columns(result, size):
            if not result.ok:
                return [f"failed ({(result.failure or '—')[:80]})", "", ""]
            return [seconds(result.wall), f"{per_record(result, size):.2f}", mib(result.peak)]

        lines.append(f"| {label} | " + " | ".join(columns(small, base) + columns(large, count)) + " | "
                     f"{times(ratio(per_record(large, count), per_record(small, base)))} | "
                     f"{times(ratio(large.cpu and large.cpu / count, small.cpu and small.cpu / base))} | "
                     f"{times(ratio(large.peak, small.peak))} |")
    lines.append("")
    sizes = ", ".join(f"{size:,} records: {figures['store_bytes'][size] / 1e6:,.0f} MB"
                      for size in (base, count) if size in figures["store_bytes"])
    if sizes:
        lines.append(f"Store after the import (file, WAL and shared memory): {sizes}.")
    wal = [(name, size, figures["wal"].get((name, size), 0)) for name, _, _ in SCALE_STEPS for size in (base, count)]
    if any(value for _, _, value in wal):
        lines.append("Largest WAL seen during each step (polled every 0.2 s): " + "; ".join(
            f"{name} {size:,} {value / 1e6:,.0f} MB" for name, size, value in wal if value) + ".")
    loads = figures["loads"]
    lines.append(f"Load average (1 minute) after each step: {min(loads):.1f} to {max(loads):.1f}, median "
                 f"{statistics.median(loads):.1f}, on {os.cpu_count()} cores; CPU time (user + system) moves "
                 "less with the load than wall time.")
    lines.append("")
    return lines


def scale_targets(all_scale):
    """The scale section's (target, figure, verdict) rows."""
    rows = []
    for figures in all_scale:
        count, base = figures["count"], figures["base"]
        for name, label, _ in SCALE_STEPS:
            small, large = figures[(name, base)], figures[(name, count)]
            r = ratio(per_record(large, count), per_record(small, base))
            rows.append((f"{name}: time per record at {count:,} ≤ {SCALE_LIMIT:g}× {base:,}",
                         f"{times(r)} ({seconds(large.wall)} ÷ {count:,} vs {seconds(small.wall)} ÷ {base:,})"
                         if r is not None else (large.failure or small.failure or "—"),
                         "**FAIL**" if r is None or r > SCALE_LIMIT else "PASS"))
        for name, label, _ in SCALE_STEPS:
            small, large = figures[(name, base)], figures[(name, count)]
            r = ratio(large.peak, small.peak)
            rows.append((f"{name}: peak RSS at {count:,} within {SCALE_MEMORY_LIMIT - 1:.0%} of {base:,}",
                         f"{mib(large.peak)} vs {mib(small.peak)} ({times(r)})",
                         "**FAIL**" if r is None or r > SCALE_MEMORY_LIMIT else "PASS"))
    return rows


# ---------------------------------------------------------------- formats

def count_lines(path):
    lines = 0
    with open(path, "rb") as file:
        while chunk := file.read(1 << 24):
            lines += chunk.count(b"\n")
    return lines


def expected_lines(name, count):
    """Lines a whole output of `count` ties has (None: not counted)."""
    return {
        "fmt-csv": count + 1, "fmt-sqlite-csv": count + 1, "fmt-tsv": count + 1, "fmt-jsonl": count,
        "fmt-json": count + 2, "fmt-list": count + 3, "fmt-sqlite-column": count + 2,
    }.get(name)


def head_one(command):
    """Runs `command | head -1`; returns (wall until both ended, exit
    statuses, head's output, the command's standard error)."""
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        producer = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=errors)
        head = subprocess.Popen(["head", "-1"], stdin=producer.stdout, stdout=subprocess.PIPE)
        producer.stdout.close()
        line = head.stdout.read()
        head.wait()
        producer.wait()
        wall = time.perf_counter() - start
        errors.seek(0)
        stderr = errors.read().decode("utf-8", "replace")
    return wall, (producer.returncode, head.returncode), line.decode("utf-8", "replace"), stderr


def binary_plist(xml_path, binary_path):
    """Converts an XML property list to a binary one with plistlib, in a
    child process so that this one's memory stays small."""
    script = ("import plistlib, sys\n"
              "with open(sys.argv[1], 'rb') as f: value = plistlib.load(f)\n"
              "with open(sys.argv[2] + '.tmp', 'wb') as f: plistlib.dump(value, f, fmt=plistlib.FMT_BINARY)\n")
    subprocess.run([sys.executable, "-c", script, xml_path, binary_path], check=True)
    os.replace(binary_path + ".tmp", binary_path)


def measure_formats(count, options, binaries):
    """Every export format and the table against the sqlite3 shell, list |
    head -1, and an import of each input format, at one size.

    The catalog is the tagged file imported by bowties, with the wear
    history of the point commands (so JSON and property lists write wears).
    The exports and list take turns in rotating order, as the imports do.
    The export's files (photos by hash) are then the inputs of the imports,
    each into a new, empty catalog.
    """
    runs = options.runs_at.get(count, options.runs)
    figures = {"count": count, "runs": runs, "checks": {}}
    stores = os.path.join(WORK, "stores")
    outputs = os.path.join(WORK, "out")
    os.makedirs(stores, exist_ok=True)
    os.makedirs(outputs, exist_ok=True)
    bowties = binaries["bowties"]
    tagged = data_file(count, images=True, tags=True)
    warm(tagged)
    store = os.path.join(stores, f"formats-{count}.sqlite")
    remove_store(store)
    figures["catalog"] = Result()
    if not record(figures["catalog"], timed([bowties, "import", tagged, "--images", IMAGES, "--store", store]),
                  "formats catalog import"):
        return figures
    key = gen.search_key(count // 2)
    if not add_history(store, key, count, figures["checks"]):
        figures["catalog"].failure = "no wear history: " + figures["checks"]["history"]["failure"]
        return figures
    log(f"  {count:>9,} formats catalog: {figures['catalog'].wall:.1f} s import, then a wear history")

    commands = {}
    for name, alternative, _, extension in FORMAT_COMMANDS:
        if name == "fmt-list":
            commands[name] = ([bowties, "list", "--store", store], True)
        else:
            commands[name] = ([bowties, "export", "--format", extension, "--output", "{out}", "--store", store],
                              False)
    commands["fmt-sqlite-csv"] = (["sqlite3", "-csv", "-header", store, SQLITE_EXPORT_SQL], True)
    commands["fmt-sqlite-json"] = (["sqlite3", "-json", store, SQLITE_JSON_SQL], True)
    commands["fmt-sqlite-column"] = (["sqlite3", "-column", "-header", store, SQLITE_TABLE_SQL], True)
    extensions = {name: extension for name, _, _, extension in FORMAT_COMMANDS}
    extensions.update({"fmt-sqlite-csv": "csv", "fmt-sqlite-json": "json", "fmt-sqlite-column": "txt"})
    names = list(commands)
    for name in names:
        figures[name] = Result()

    def output_path(name):
        return os.path.join(outputs, f"{name}-{count}.{extensions[name]}")

    for run in range(runs):
        shift = run % len(names)
        for name in names[shift:] + names[:shift]:
            if figures[name].failure:
                continue
            command, to_stdout = commands[name]
            out = output_path(name)
            if os.path.exists(out):
                os.remove(out)
            command = [part.replace("{out}", out) for part in command]
            if record(figures[name], timed(command, out if to_stdout else os.devnull), name):
                log(f"  {count:>9,} {name:<17} run {run + 1}/{runs}: "
                    f"{figures[name].walls[-1]:7.2f} s {figures[name].rss[-1] / 1024:7.1f} MiB")
    # Whole outputs: one line per tie (and the headers and summaries).
    counted = {}
    for name in names:
        expected = expected_lines(name, count)
        if figures[name].ok and expected is not None:
            lines = count_lines(output_path(name))
            counted[name] = (lines, expected)
            if lines != expected:
                figures[name].failure = f"wrote {lines:,} lines, expected {expected:,}"
                log(f"    {name}: FAILED ({figures[name].failure})")
    figures["checks"]["lines"] = counted

    # list | head -1: until head has its line and bowties has ended.
    head = figures["fmt-head"] = Result()
    for run in range(options.short_runs):
        wall, statuses, line, stderr = head_one([bowties, "list", "--store", store])
        if statuses != (0, 0) or not line.startswith("KEY") or stderr.strip():
            head.failure = f"exit {statuses}, first line {line.strip()[:40]!r}, stderr {stderr.strip()[:80]!r}"
            log(f"    list | head -1: FAILED ({head.failure})")
            break
        head.walls.append(wall)
    if head.ok:
        log(f"  {count:>9,} list | head -1 median {head.wall * 1000:6.1f} ms of {options.short_runs}")

    # An import of each input format, each into a new catalog.
    sources = {extension: output_path(f"fmt-{extension}") for extension in ("plist", "json", "jsonl", "csv", "tsv")}
    if figures["fmt-plist"].ok:
        start = time.perf_counter()
        sources["bplist"] = os.path.join(outputs, f"fmt-bplist-{count}.plist")
        try:
            binary_plist(sources["plist"], sources["bplist"])
            log(f"  {count:>9,} binary plist converted by plistlib in {time.perf_counter() - start:.1f} s")
        except (subprocess.CalledProcessError, OSError) as error:
            figures["checks"]["bplist"] = str(error)
    for extension, _ in IMPORT_FORMATS:
        name = f"import-{extension}"
        result = figures[name] = Result()
        source = sources.get(extension)
        if source is None or not os.path.exists(source) or not figures.get(f"fmt-{extension}", figures["fmt-plist"]).ok:
            result.failure = "no input file (its export failed)"
            continue
        target = os.path.join(stores, f"formats-import-{count}.sqlite")
        remove_store(target)
        warm(source)
        run = timed([bowties, "import", source, "--store", target])
        if record(result, run, name):
            # CSV and TSV hold no wear history.
            counts = ("SELECT count(*), (SELECT count(*) FROM bowtie_tag),"
                      + (" 0" if extension in ("csv", "tsv") else " (SELECT count(*) FROM wear)") + " FROM bowtie")
            rows, expected = query(target, counts), query(store, counts)
            if rows != expected:
                result.failure = f"stored {rows} (ties, tag links, wears), expected {expected}"
                log(f"    {name}: FAILED ({result.failure})")
            warnings = [line for line in run.stderr.splitlines() if line.startswith("bowties: warning: ")]
            figures["checks"][name] = (os.path.getsize(source), len(warnings), warnings[-1] if warnings else None)
            log(f"  {count:>9,} {name:<17}: {run.wall:7.2f} s {run.rss / 1024:7.1f} MiB")
        remove_store(target)
    for name in names:
        if os.path.exists(output_path(name)):
            os.remove(output_path(name))
    if "bplist" in sources and os.path.exists(sources["bplist"]):
        os.remove(sources["bplist"])
    remove_store(store)
    return figures


# ---------------------------------------------------------------- warnings

def measure_warnings(count, binaries):
    """Peak RSS of one import with the photos and one with none found.

    The same file both times. With `--images SampleData/Images` every photo
    is found; without `--images`, image names resolve in `Images/` beside
    the file, which bench/work/data does not have, so every record warns
    that its photo is missing. One run each: the figure is memory, which
    moves little from run to run.
    """
    plist = data_file(count, images=True)
    images_beside = os.path.join(os.path.dirname(plist), "Images")
    figures = {"count": count, "with": Result(), "without": Result(), "warning_lines": None,
               "summary": None}
    if os.path.exists(images_beside):
        figures["without"].failure = f"{images_beside} exists: the photos would be found"
        log(f"  warnings: FAILED ({figures['without'].failure})")
        return figures
    stores = os.path.join(WORK, "stores")
    os.makedirs(stores, exist_ok=True)
    warm(plist)
    for name, extra in (("with", ["--images", IMAGES]), ("without", [])):
        store = os.path.join(stores, f"warnings-{name}-{count}.sqlite")
        remove_store(store)
        run = timed([binaries["bowties"], "import", plist, "--store", store] + extra)
        if record(figures[name], run, f"warnings import {name} photos"):
            rows = query(store, "SELECT count(*) FROM bowtie")[0]
            if rows != count:
                figures[name].failure = f"stored {rows} rows, expected {count}"
                log(f"    warnings import {name} photos: FAILED ({figures[name].failure})")
            log(f"  {count:>9,} import {name + ' photos':<17}: {run.wall:7.2f} s {run.rss / 1024:7.1f} MiB")
            if name == "without":
                lines = [line for line in run.stderr.splitlines() if line.startswith("bowties: warning: ")]
                figures["warning_lines"] = len(lines)
                figures["summary"] = lines[-1][len("bowties: warning: "):] if lines else None
        remove_store(store)
    return figures


# ---------------------------------------------------------------- report

def seconds(value):
    if value is None:
        return "—"
    if value >= 10:
        return f"{value:.1f} s"
    if value >= 1:
        return f"{value:.2f} s"
    if value >= 0.1:
        return f"{value * 1000:.0f} ms"
    return f"{value * 1000:.1f} ms"


def mib(kib):
    return "—" if kib is None else f"{kib / 1024:.1f} MiB"


def times(value):
    return "—" if value is None else f"{value:.2f}×"


def spread(result):
    if not result.ok or len(result.walls) < 2:
        return ""
    return f"{min(result.walls) / result.wall:.2f}–{max(result.walls) / result.wall:.2f}"


def cell(result):
    """Wall, spread, CPU and peak RSS cells of a result."""
    if result.skipped:
        return result.skipped, "", "", ""
    if result.failure:
        return f"failed ({result.failure[:120]})", "", "", ""
    return seconds(result.wall), spread(result), seconds(result.cpu), mib(result.peak)


def ratio(a, b):
    return a / b if a is not None and b not in (None, 0) else None


def faster(their_time, our_time):
    """'3.10× faster' or '2.00× slower': bowties against another tool."""
    r = ratio(their_time, our_time)
    if r is None:
        return None, "—"
    return r, f"bowties {r:.2f}× faster" if r >= 1 else f"bowties {1 / r:.2f}× slower"


def command_output(command):
    try:
        return subprocess.run(command, capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        return ""


def file_digest(path):
    import hashlib
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        while chunk := file.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()[:16]


def machine(bowties):
    cpu = "unknown"
    with open("/proc/cpuinfo") as info:
        for line in info:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as info:
        memory = int(info.readline().split()[1]) / 1024 / 1024
    release = platform.platform()
    if os.path.exists("/etc/os-release"):
        with open("/etc/os-release") as info:
            fields = dict(line.rstrip().split("=", 1) for line in info if "=" in line)
        release = fields.get("PRETTY_NAME", release).strip('"')
    commit = command_output(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"])
    dirty = command_output(["git", "-C", ROOT, "status", "--porcelain", "--", "Sources", "Package.swift"])
    return [
        ("CPU", f"{cpu}, {os.cpu_count()} cores"),
        ("RAM", f"{memory:.1f} GiB"),
        ("OS", f"{release}, Linux {platform.release()}"),
        ("swift", (command_output(["swift", "--version"]).splitlines() or ["?"])[0]),
        ("gcc", command_output(["gcc", "--version"]).splitlines()[0]),
        ("python", f"{platform.python_version()} ({sys.executable}), its sqlite3 module links SQLite {sqlite3.sqlite_version}"),
        ("sqlite3 shell", command_output(["sqlite3", "--version"]).split(" ")[0]),
        ("libsqlite3 (pkg-config)", command_output(["pkg-config", "--modversion", "sqlite3"])),
        ("libxml2 (pkg-config)", command_output(["pkg-config", "--modversion", "libxml-2.0"])),
        ("bowties", f"commit {commit}" + (" with uncommitted changes in Sources/ or Package.swift" if dirty else "")
         + f"; binary {os.path.relpath(bowties, ROOT)}, SHA-256 {file_digest(bowties)}…"),
        ("date", datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")),
    ]


def report(all_figures, warnings, options, machine_rows, loads, elapsed, formats=(), all_scale=()):
    lines = ["# bowties benchmark", ""]
    command = "bench/run " + " ".join(sys.argv[1:])
    if all_figures or formats:
        lines += [f"`{command.strip()}`: medians of {options.runs} run(s) per import and export figure "
                  f"(see per-size counts below), {options.short_runs} for the point commands and their floors. "
                  "Spread is the fastest and slowest run divided by the median. CPU is user + system "
                  "time from /usr/bin/time (median); on a busy machine it moves less than wall time. "
                  f"MiB are 2^20 bytes. The whole bench took {elapsed / 60:.1f} min.", ""]
    else:
        lines += [f"`{command.strip()}`: the scale section only, each step at each size as many times as "
                  "`--runs-at` says (default once; the median is quoted). CPU is user + system time from "
                  f"/usr/bin/time. MiB are 2^20 bytes. The whole bench took {elapsed / 60:.1f} min.", ""]
    lines += ["## Machine", "", "| | |", "|---|---|"]
    lines += [f"| {name} | {value} |" for name, value in machine_rows]
    lines += [f"| load average | {loads[0]} at the start, {loads[1]} at the end |", ""]

    for figures in all_figures:
        count = figures["count"]
        lines += [f"## {count:,} records ({figures['bytes'] / 1e6:.0f} MB file, {figures['runs']} run(s))", ""]
        base = figures["bowties"]
        lines += ["### Import", "",
                  "| importer | wall (median) | spread | CPU user+sys | peak RSS | time ÷ bowties |",
                  "|---|---:|---:|---:|---:|---:|"]
        for name in IMPORTERS + EXTRA_IMPORTERS:
            if name not in figures:
                continue
            wall, sp, cpu, rss = cell(figures[name])
            factor = times(ratio(figures[name].wall, base.wall)) if name != "bowties" else "1.00×"
            lines.append(f"| {LABELS[name]} | {wall} | {sp} | {cpu} | {rss} | {factor} |")
        lines.append("")
        c = figures["c"]
        lines.append(f"bowties ÷ C reference: **{times(ratio(base.wall, c.wall))}**"
                     + (f"; bowties without photos ÷ C: {times(ratio(figures['bowties-nophotos'].wall, c.wall))}"
                        if "bowties-nophotos" in figures else "") + ".")
        if "bowties-nophotos" in figures:
            lines.append(f"Photo cost: with ÷ without imageName = "
                         f"**{times(ratio(base.wall, figures['bowties-nophotos'].wall))}** in time, "
                         f"{times(ratio(base.peak, figures['bowties-nophotos'].peak))} in peak RSS.")
        checks = figures["checks"]
        if "blobs" in checks:
            lines.append(f"Photos stored once: `SELECT count(*) FROM blob` = {checks['blobs']} "
                         f"(expect {PHOTO_COUNT}); `.bowties-{count}_SUPPORT/_EXTERNAL_DATA/` holds "
                         f"{checks['external_files']} files (expect {EXTERNAL_PHOTO_COUNT}).")
        if "bowties-tags" in figures:
            tagged, links, names = figures["expected_tags"]
            stored, _ = checks.get("tags", (None, None))
            lines.append(f"With tags: the same ties, {tagged:,} of them with a `tags` array ({links:,} "
                         f"names from {names} tags; a {figures['tagged_bytes'] / 1e6:.0f} MB file); stored "
                         + ("as in the file" if stored == (tagged, links, names) else
                            f"WRONG: {stored}" if stored else "— (the import failed)")
                         + f". Tags cost: with ÷ without tags = "
                         f"**{times(ratio(figures['bowties-tags'].wall, base.wall))}** in time, "
                         f"{times(ratio(figures['bowties-tags'].peak, base.peak))} in peak RSS. "
                         "Not compared with C, which does not read tags.")
        lines.append("")
        if "bowties-show" in figures:
            history = checks.get("history")
            catalog = ("the tagged import" if figures.get("catalog") == "tags"
                       else "the import without tags (the tagged import failed)")
            lines += [f"### Point commands (key `{figures['key']}`, whole process, "
                      f"{options.short_runs} runs, on {catalog} with a wear history)", ""]
            if history and history["failure"] is None:
                lines += [f"History: **{history['rows']:,} rows in `wear`** ({HISTORY_PER_TIE} on each of "
                          f"{history['every_ties']:,} ties, 1 in {HISTORY_EVERY}, and {history['key_wears']} on "
                          f"`{figures['key']}`, which has {figures.get('key_tags', 0)} tags), inserted by the "
                          f"sqlite3 shell in one transaction in {seconds(history['seconds'])}, before the timed runs. "
                          f"`{figures['key']}`: timesWorn {history['after']} = baseline {history['baseline']} + "
                          f"{history['key_wears']} wears: "
                          f"{'yes' if history['after'] == history['baseline'] + history['key_wears'] else 'NO'}; "
                          f"ties whose timesWorn or lastWorn disagree with their history: {history['wrong']}"
                          + ("" if history["rows"] == history["expected_rows"]
                             else f" (WRONG: expected {history['expected_rows']:,} wears)") + ".", ""]
            elif history:
                lines += [f"History: FAILED ({history['failure']}).", ""]
            lines += ["Each bowties command next to its floor, the pair taking turns (the first turn rotating), "
                      f"{options.short_runs} runs each: the sqlite3 shell running the same SQL on the same store "
                      "(SQLITE_*_SQL in bench/harness.py; the writes with bowties' `foreign_keys = ON` and "
                      "`synchronous = NORMAL`), or, for `--version` and `--help`, bench/floor, a static Swift "
                      "program that imports Foundation and prints one line.", ""]
            call = figures.get("completion_call")
            if call:
                lines += [f"The completion is the call bash's script makes at `bowties show --store STORE "
                          f"{COMPLETION_PREFIX}<Tab>`: `{' '.join(call)}`.", ""]
            lines += ["| command | wall (median) | spread | peak RSS | ÷ floor |", "|---|---:|---:|---:|---:|"]
            shown = set()
            for mine, floor, _ in POINT_PAIRS:
                for name in (mine, floor):
                    if name in shown or name not in figures:
                        continue
                    shown.add(name)
                    wall, sp, _, rss = cell(figures[name])
                    factor = times(ratio(figures[mine].wall, figures[floor].wall)) if name == mine else ""
                    lines.append(f"| {LABELS[name]} | {wall} | {sp} | {rss} | {factor} |")
            lines.append("")
            worn, expected = checks.get("wear_counted", (None, None))
            rows, _ = checks.get("wear_rows", (None, None))
            sides = ", ".join(f"{side} {turns(figures[name])}" for side, name in
                              (("bowties", "bowties-wear"), ("sqlite3", "sqlite-wear")) if name in figures)
            lines.append(f"Every wear counted ({expected} turns: {sides}): "
                         + ("yes" if worn == expected and rows == expected
                            else f"NO (timesWorn +{worn}, rows in `wear` +{rows})") + ".")
            for name, what in (("rating", "Rating"), ("favorite", "Favourite mark")):
                if name in checks:
                    stored, expected = checks[name]
                    lines.append(f"{what} as the last turn left it: " + (
                        "yes" if stored == expected else f"NO (stored {stored}, expected {expected})") + ".")
            answers = checks.get("answers", {})
            if answers:
                labels = {mine: label for mine, _, label in POINT_PAIRS}
                lines.append("The same answer from both sides, run once before the timed turns: " + ", ".join(
                    f"{labels[name]} " + ("yes" if answer is None else f"NO ({answer})")
                    for name, answer in answers.items()) + ".")
            lines.append("")
        if "bowties-export" in figures:
            lines += ["### Export", "",
                      "| exporter | wall (median) | spread | CPU user+sys | peak RSS | time ÷ bowties |",
                      "|---|---:|---:|---:|---:|---:|"]
            for name in ("bowties-export", "sqlite-export", "python-export"):
                wall, sp, cpu, rss = cell(figures[name])
                factor = times(ratio(figures[name].wall, figures["bowties-export"].wall))
                lines.append(f"| {LABELS[name]} | {wall} | {sp} | {cpu} | {rss} | {factor} |")
            same = checks.get("same_csv")
            lines += ["", "bowties and csv_export.py wrote "
                      + ("byte-identical files." if same else "DIFFERENT files." if same is False
                         else "files that were not compared (a run failed).") , ""]

    for figures in formats:
        lines += formats_report(figures, options)

    for figures in all_scale:
        lines += scale_report(figures)

    if warnings:
        count = warnings["count"]
        with_, without = warnings["with"], warnings["without"]
        lines += [f"## Warnings: {count:,} records, every photo found or none (1 run each)", "",
                  "The same file imported twice into new stores: with `--images SampleData/Images`, and "
                  "without `--images`, so that names resolve in an `Images/` folder that does not exist and "
                  "every record warns that its photo is missing.", "",
                  "| import | wall | CPU user+sys | peak RSS |", "|---|---:|---:|---:|"]
        for label, result in (("photos found", with_), ("no photo found", without)):
            wall, _, cpu, rss = cell(result)
            lines.append(f"| {label} | {wall} | {cpu} | {rss} |")
        lines.append("")
        difference = warnings_difference(warnings)
        lines.append(f"Peak RSS without photos − with: **{signed_mib(difference)}**.")
        if warnings["warning_lines"] is not None:
            lines.append(f"Warning lines printed without photos: {warnings['warning_lines']:,}"
                         + (f"; the last: `{warnings['summary']}`" if warnings["summary"] else "") + ".")
        lines.append("")

    lines += ["## Targets", "", "| target | figure | pass |", "|---|---|---|"]
    rows = (targets(all_figures, warnings) if all_figures else []) + formats_targets(formats) + scale_targets(all_scale)
    lines += [f"| {name} | {figure} | {verdict} |" for name, figure, verdict in rows]
    lines.append("")
    return "\n".join(lines)


def formats_report(figures, options):
    """The markdown of one size of the formats section."""
    count = figures["count"]
    lines = [f"## Formats: {count:,} records ({figures['runs']} run(s))", ""]
    catalog = figures["catalog"]
    if not catalog.ok:
        return lines + [f"The catalog could not be built: {catalog.failure}.", ""]
    history = figures["checks"].get("history") or {}
    lines += [f"The catalog: the file with tags (`{os.path.basename(data_file(count, True, True))}`) imported by "
              f"bowties in {seconds(catalog.wall)}, then {history.get('rows', 0):,} wears (the point commands' "
              "history). Every command reads that store and writes a file (standard output to a file, not a "
              "terminal); they take turns in rotating order. The sqlite3 queries are in bench/harness.py "
              "(SQLITE_EXPORT_SQL, SQLITE_JSON_SQL, SQLITE_TABLE_SQL): the same rows and columns, unformatted.", "",
              "| command | wall (median) | spread | CPU user+sys | peak RSS | ÷ sqlite3 |",
              "|---|---:|---:|---:|---:|---:|"]
    for name, alternative, _, _ in FORMAT_COMMANDS:
        for row in (name, alternative):
            if row is None:
                continue
            wall, sp, cpu, rss = cell(figures[row])
            factor = (times(ratio(figures[name].wall, figures[alternative].wall))
                      if row == name and alternative else "")
            lines.append(f"| {LABELS[row]} | {wall} | {sp} | {cpu} | {rss} | {factor} |")
    head = figures.get("fmt-head")
    if head:
        wall, sp, _, _ = cell(head)
        lines.append(f"| {LABELS['fmt-head']} ({options.short_runs} runs, until both end) | {wall} | {sp} | | | |")
    lines.append("")
    counted = figures["checks"].get("lines", {})
    if counted:
        lines.append("Lines written: " + ", ".join(
            f"{name[4:]} {lines_:,}" + ("" if lines_ == expected else f" (WRONG: expected {expected:,})")
            for name, (lines_, expected) in counted.items()) + ".")
        lines.append("")
    lines += [f"### Import of each input format ({count:,} records, 1 run each, into an empty catalog)", "",
              "The inputs are the exports above (`--photos hash`, the default: a photo by its SHA-256, which an "
              "empty catalog does not hold, so each record with a photo warns once); the binary property "
              "list is the XML one converted by Python's plistlib.", "",
              "| input | file | wall | CPU user+sys | peak RSS | warnings |", "|---|---:|---:|---:|---:|---:|"]
    for extension, label in IMPORT_FORMATS:
        result = figures.get(f"import-{extension}")
        if result is None:
            continue
        wall, _, cpu, rss = cell(result)
        size, warned, _ = figures["checks"].get(f"import-{extension}", (None, None, None))
        lines.append(f"| {label} | {'' if size is None else f'{size / 1e6:.0f} MB'} | {wall} | {cpu} | {rss} | "
                     f"{'' if warned is None else f'{warned:,} lines'} |")
    lines.append("")
    return lines


def formats_targets(formats):
    """The formats section's (target, figure, verdict) rows."""
    rows = []

    def verdict(ok):
        return "n/a" if ok is None else "PASS" if ok else "**FAIL**"

    for figures in formats:
        at = f"{figures['count']:,}"
        if not figures["catalog"].ok:
            rows.append((f"formats ({at})", f"no catalog: {figures['catalog'].failure}", verdict(False)))
            continue
        head = figures["fmt-head"]
        rows.append((f"`list \\| head -1` ≤ {HEAD_LIMIT_SECONDS * 1000:.0f} ms ({at})",
                     seconds(head.wall) if head.ok else (head.failure or "—"),
                     verdict(None if not head.ok else head.wall <= HEAD_LIMIT_SECONDS)))
        for name, alternative, limit, _ in FORMAT_COMMANDS:
            if alternative is None:
                continue
            r = ratio(figures[name].wall, figures[alternative].wall)
            what = "list (table)" if name == "fmt-list" else f"export {name[4:].upper()}"
            rows.append((f"{what} ≤ {limit:g}× `{LABELS[alternative].split('`')[1]}` ({at})", times(r),
                         verdict(None if r is None else r <= limit)))
        peaks = [(name[4:], figures[name].peak) for name, _, _, _ in FORMAT_COMMANDS]
        worst = max((peak for _, peak in peaks if peak is not None), default=None)
        failed = [name for name, _ in peaks if not figures[f"fmt-{name}"].ok]
        rows.append((f"peak RSS ≤ 40 MiB, every export format and list ({at})",
                     ", ".join(f"{name} {mib(peak)}" for name, peak in peaks),
                     verdict(False if failed else None if worst is None else worst <= FORMATS_MEMORY_LIMIT_KIB)))
        imports = [(extension, figures.get(f"import-{extension}")) for extension, _ in IMPORT_FORMATS]
        failed = [extension for extension, result in imports if result is None or not result.ok]
        worst = max((result.peak for _, result in imports if result is not None and result.ok), default=None)
        rows.append((f"import peak RSS ≤ 40 MiB, every input format ({at})",
                     ", ".join(f"{extension} {mib(result.peak) if result is not None and result.ok else 'failed'}"
                               for extension, result in imports),
                     verdict(False if failed else None if worst is None else worst <= FORMATS_MEMORY_LIMIT_KIB)))
    if len(formats) >= 2 and all(figures["catalog"].ok for figures in (formats[0], formats[-1])):
        small, large = formats[0], formats[-1]
        names = [name for name, _, _, _ in FORMAT_COMMANDS] + [f"import-{e}" for e, _ in IMPORT_FORMATS]
        parts, ok = [], True
        for name in names:
            r = ratio(large[name].peak if name in large else None, small[name].peak if name in small else None)
            parts.append(f"{name.replace('fmt-', '')} {times(r)}")
            ok = ok and r is not None and r <= 1.10
        rows.append((f"peak RSS flat: at {large['count']:,} within 10% of {small['count']:,}, every format",
                     ", ".join(parts), verdict(ok)))
    elif formats:
        rows.append(("formats peak RSS flat across sizes", "needs two sizes", "n/a"))
    return rows


def warnings_difference(warnings):
    """Peak RSS without photos minus with photos, in KiB, or None."""
    if not warnings or not (warnings["with"].ok and warnings["without"].ok):
        return None
    return warnings["without"].peak - warnings["with"].peak


def signed_mib(kib):
    return "—" if kib is None else f"{kib / 1024:+.1f} MiB"


def targets(all_figures, warnings=None):
    """(target, figure, PASS/FAIL/n/a) rows; sizes as measured."""
    rows = []

    def verdict(ok):
        return "n/a" if ok is None else "PASS" if ok else "**FAIL**"

    def at(figures):
        return f"{figures['count']:,}"

    by_count = {figures["count"]: figures for figures in all_figures}
    small = by_count.get(100_000, all_figures[0])
    large = all_figures[-1]

    # Issue 21's bar: faster than the C lower bound, at most 0.9× its wall
    # time, on the file without tags (the C reference reads no tags).
    for figures in all_figures:
        r = ratio(figures["bowties"].wall, figures["c"].wall)
        rows.append((f"import ≤ 0.9× the C reference ({at(figures)})", times(r),
                     verdict(None if r is None else r <= 0.9)))
    for figures in all_figures:
        for name, label in (("python", "Python"), ("foundation", "Foundation")):
            r, text = faster(figures[name].wall, figures["bowties"].wall)
            rows.append((f"import ≥ 3× faster than {label} ({at(figures)})",
                         text if r else figures[name].skipped or "—",
                         verdict(None if r is None else r >= 3)))
    for figures in all_figures:
        undo = figures.get("bowties-undo")
        if undo is None:
            continue
        r = ratio(undo.wall, figures["bowties"].wall)
        rows.append((f"undo of the import ≤ 2× the import ({at(figures)})",
                     f"{seconds(undo.wall)} ({times(r)})" if not undo.failure else undo.failure,
                     verdict(None if r is None or undo.failure else r <= 2)))
    peak = large["bowties"].peak
    rows.append((f"import peak RSS ≤ 40 MiB ({at(large)})", mib(peak),
                 verdict(None if peak is None else peak <= 40 * 1024)))
    if large is not small:
        r = ratio(large["bowties"].peak, small["bowties"].peak)
        rows.append((f"import peak RSS at {at(large)} within 10% of {at(small)}",
                     f"{mib(large['bowties'].peak)} vs {mib(small['bowties'].peak)} ({times(r)})",
                     verdict(None if r is None else r <= 1.10)))
    else:
        rows.append(("import peak RSS flat across sizes", "needs two sizes", "n/a"))
    for figures in all_figures:
        checks = figures["checks"]
        if "bowties-nophotos" not in figures:
            continue
        if "blobs" in checks:
            once = checks["blobs"] == PHOTO_COUNT and checks["external_files"] == EXTERNAL_PHOTO_COUNT
            rows.append((f"photos stored once ({at(figures)})",
                         f"{checks['blobs']} blob rows, {checks['external_files']} external files",
                         verdict(once)))
        r = ratio(figures["bowties"].wall, figures["bowties-nophotos"].wall)
        rows.append((f"photos cost ≤ 1.2× the import without photos ({at(figures)})", times(r),
                     verdict(None if r is None else r <= 1.2)))
    # At every size, on a catalog with a wear history; a figure measured
    # without one (the history failed or did not add up) does not count.
    for figures in all_figures:
        history = figures["checks"].get("history")
        for name, label in (("bowties-show", "show"), ("bowties-wear", "wear")):
            result = figures.get(name)
            wall = result.wall if result else None
            if wall is not None and not history_holds(history):
                figure, ok = f"{seconds(wall)}, but the history did not hold", False
            else:
                figure, ok = seconds(wall), None if wall is None else wall <= 0.025
            wears = f", {history['rows']:,} wears" if history_holds(history) else ""
            rows.append((f"{label} ≤ 25 ms, whole process, with a history ({at(figures)}{wears})",
                         figure, verdict(ok)))
    # Issue 21: each point command at most POINT_LIMIT× its floor, in the
    # same run; against the sqlite3 shell only on a store whose history
    # held (--version and --help do not open it).
    for figures in all_figures:
        history = figures["checks"].get("history")
        wears = f", {history['rows']:,} wears" if history_holds(history) else ""
        for mine, floor, label in POINT_PAIRS:
            if mine not in figures or floor not in figures:
                continue
            a, b = figures[mine].wall, figures[floor].wall
            r = ratio(a, b)
            figure = "—" if r is None else f"{times(r)} ({seconds(a)} ÷ {seconds(b)})"
            ok = None if r is None else r <= POINT_LIMIT
            if floor == "floor":
                against, where = "a static Swift program with Foundation", ""
            else:
                against, where = "the sqlite3 shell, same SQL", wears
                if r is not None and not history_holds(history):
                    figure, ok = f"{figure}, but the history did not hold", False
            rows.append((f"{label} ≤ {POINT_LIMIT:g}× {against} ({at(figures)}{where})", figure, verdict(ok)))
    for figures in all_figures:
        if "bowties-export" not in figures:
            continue
        mine = figures["bowties-export"].wall
        r, text = faster(figures["python-export"].wall, mine)
        rows.append((f"export ≥ 2× faster than Python csv ({at(figures)})",
                     text, verdict(None if r is None else r >= 2)))
        r = ratio(mine, figures["sqlite-export"].wall)
        rows.append((f"export ≤ 2× `sqlite3 -csv` ({at(figures)})", times(r),
                     verdict(None if r is None else r <= 2)))
    if large is not small and "bowties-export" in large and "bowties-export" in small:
        r = ratio(large["bowties-export"].peak, small["bowties-export"].peak)
        rows.append((f"export memory flat: peak RSS at {at(large)} within 10% of {at(small)}",
                     f"{mib(large['bowties-export'].peak)} vs {mib(small['bowties-export'].peak)} ({times(r)})",
                     verdict(None if r is None else r <= 1.10)))
    else:
        rows.append(("export memory flat across sizes", "needs two sizes", "n/a"))
    if warnings:
        difference = warnings_difference(warnings)
        figure = (f"{mib(warnings['without'].peak)} vs {mib(warnings['with'].peak)} ({signed_mib(difference)})"
                  if difference is not None else "—")
        rows.append((f"import peak RSS with no photo found ≤ 5 MiB above the import with photos "
                     f"({warnings['count']:,})", figure,
                     verdict(None if difference is None else difference <= WARNINGS_MEMORY_LIMIT_KIB)))
    return rows


def main(argv):
    options = parse_options(argv)
    binaries = {
        "bowties": os.environ.get("BOWTIES_BIN", os.path.join(WORK, "bin", "bowties")),
        "c": os.environ.get("IMPORT_C_BIN", os.path.join(WORK, "bin", "import-c")),
        "foundation": os.environ.get(
            "FOUNDATION_BIN", os.path.join(WORK, ".build-foundation", "release", "foundation-import")),
        "floor": os.environ.get("FLOOR_BIN", os.path.join(WORK, "floor-build", "release", "floor")),
    }
    for name, path in binaries.items():
        if name != "bowties" and not options.records:
            continue  # the formats and scale sections need bowties and the sqlite3 shell only
        if not os.access(path, os.X_OK):
            log(f"bench: {name} binary {path} is missing; run bench/run, which builds it")
            return 1
    os.environ.pop("BOWTIES_STORE", None)
    os.environ["NO_COLOR"] = "1"
    start = time.perf_counter()
    loads = [" ".join(f"{x:.2f}" for x in os.getloadavg())]
    if os.getloadavg()[0] > (os.cpu_count() or 1) / 2:
        log(f"bench: warning: load average is {loads[0]}; other work on this machine will slow every figure")
    machine_rows = machine(binaries["bowties"])
    all_figures = []
    for count in options.records:
        log(f"== {count:,} records")
        all_figures.append(measure_size(count, options, binaries))
    all_scale = []
    for count in options.scale_records:
        log(f"== scale: {count:,} records next to {options.scale_base:,}")
        all_scale.append(measure_scale(count, options, binaries))
    warnings = None
    if not options.skip_warnings:
        log(f"== warnings: {options.warnings_records:,} records, with and without photos")
        warnings = measure_warnings(options.warnings_records, binaries)
    formats = []
    for count in options.formats_records:
        log(f"== formats: {count:,} records")
        formats.append(measure_formats(count, options, binaries))
    loads.append(" ".join(f"{x:.2f}" for x in os.getloadavg()))
    text = report(all_figures, warnings, options, machine_rows, loads, time.perf_counter() - start, formats,
                  all_scale)
    os.makedirs(os.path.dirname(os.path.abspath(options.output)), exist_ok=True)
    with open(options.output, "w", encoding="utf-8") as out:
        out.write(text)
    print(text)
    log(f"bench: wrote {os.path.relpath(options.output)}")
    failed = any(isinstance(result, Result) and result.failure
                 for figures in all_figures + all_scale for result in figures.values())
    for figures in all_figures:
        checks = figures["checks"]
        worn, expected = checks.get("wear_counted", (0, 0))
        rows, _ = checks.get("wear_rows", (expected, expected))
        failed = failed or checks.get("same_csv") is False or worn != expected or rows != expected
        failed = failed or any(answer is not None for answer in checks.get("answers", {}).values())
        failed = failed or any(len(set(checks.get(name, ()))) > 1 for name in ("rating", "favorite"))
        failed = failed or ("history" in checks and not history_holds(checks["history"]))
    if warnings:
        failed = failed or any(result.failure for result in (warnings["with"], warnings["without"]))
    failed = failed or any(isinstance(result, Result) and result.failure
                           for figures in formats for result in figures.values())
    if failed:
        log("bench: a command failed or a check did not hold; see the report")
        return 1
    rows = (targets(all_figures, warnings) if all_figures else []) + formats_targets(formats) + scale_targets(all_scale)
    if options.strict and any(verdict == "**FAIL**" for _, _, verdict in rows):
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
