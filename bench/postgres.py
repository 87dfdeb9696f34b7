#!/usr/bin/env python3
"""bowties on a PostgreSQL catalog next to psql doing the same work
(issue 24, point 6), on a throwaway server of its own.

Run through `bench/run --postgres`, which builds bowties in release and
installs Debian's `postgresql` when it is missing; BOWTIES_BIN names the
binary to measure.

    bench/run --postgres                          # 100k import, 1M list/export
    bench/run --postgres --records 20k --large 100k --runs 1   # quick
    BOWTIES_BIN=… python3 bench/postgres.py --only concurrency   # wears from 1 to 64 clients
    BOWTIES_BIN=… python3 bench/postgres.py --only pgbouncer     # 64 clients, directly and pooled

The server: `initdb` and `postgres` from `pg_config --bindir` (or the
newest /usr/lib/postgresql/*/bin), as `nobody` when this runs as root, in a
temporary folder, on 127.0.0.1 at a free port, with the settings of the
test server (Tests/EndToEndTests/PostgreSQLServer.swift: fsync, full page
writes and synchronous commit off, 16 MB of shared buffers; 100
connections, for the concurrency section's 64 clients and the bench's
own), the owner's password over TCP (scram-sha-256) in PGPASSWORD for
every client, never in an argument. It is stopped and its folder removed
at the end, also on failure.

The concurrency section (docs/SCALING.md) runs `bowties wear` from 1, 8,
32 and 64 concurrent clients, every client on one tie and each on its
own, next to pgbench (`pgbench -C` and `pgbench`, from the same folder as
the server) sending the same SQL, and checks that every wear was counted.
The pgbouncer section (not in the default set) runs the most of those
clients directly and through PgBouncer in transaction mode, in turns, and
shows what the pool's next client sees of bowties' session settings.

Every pair runs in turns, the first turn rotating, so the machine's load
weighs on both sides alike; ratios are of medians. The load average is
printed beside each section.
"""

import argparse
import datetime
import glob
import hashlib
import math
import os
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH)
import gen  # noqa: E402
import harness  # noqa: E402  (spawn, timed, data_file, log, formatting)

OWNER = "bowties"
PASSWORD = "bench-" + hashlib.sha256(os.urandom(16)).hexdigest()[:16]
RESULTS = os.path.join(BENCH, "results", "postgres.md")
log = harness.log


def load():
    return open("/proc/loadavg").read().split()[0:3]


def size_argument(text):
    return harness.count_argument(text)


def client_levels(text):
    """`1,8,32,64`: the numbers of concurrent clients, each at least 1."""
    try:
        levels = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text}: numbers separated by commas, e.g. 1,8,32,64")
    if not levels or min(levels) < 1:
        raise argparse.ArgumentTypeError(f"{text}: each level is at least 1 client")
    return levels


class Server:
    """initdb + postgres in a temporary folder; stop() removes it."""

    def __init__(self):
        self.bin = self.find_bin()
        self.folder = tempfile.mkdtemp(prefix="bowties-bench-pg-")
        self.data = os.path.join(self.folder, "data")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.launcher = (["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
                         if os.getuid() == 0 else [])
        self.process = None

    @staticmethod
    def find_bin():
        try:
            found = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True).stdout.strip()
            if os.path.exists(os.path.join(found, "initdb")):
                return found
        except FileNotFoundError:
            pass
        candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                            key=lambda path: int(path.split("/")[4]))
        if not candidates:
            sys.exit("no PostgreSQL server programs: apt install postgresql (bench/run --postgres does)")
        return os.path.dirname(candidates[-1])

    def start(self):
        password_file = os.path.join(self.folder, "pwfile")
        with open(password_file, "w") as out:
            out.write(PASSWORD + "\n")
        if os.getuid() == 0:
            os.chmod(self.folder, 0o700)
            os.chown(self.folder, 65534, 65534)
            os.chown(password_file, 65534, 65534)
        subprocess.run(self.launcher + [
            os.path.join(self.bin, "initdb"), "-D", self.data, "-U", OWNER, "--pwfile", password_file,
            "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync",
        ], check=True, stdout=subprocess.DEVNULL)
        os.remove(password_file)
        self.process = subprocess.Popen(self.launcher + [
            os.path.join(self.bin, "postgres"), "-D", self.data, "-p", str(self.port), "-k", self.folder,
            "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
            "-c", "full_page_writes=off", "-c", "max_connections=100", "-c", "shared_buffers=16MB",
            "-c", "logging_collector=off",
        ], stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.folder, "server.log"), "w"))
        deadline = time.time() + 30
        while time.time() < deadline:
            if subprocess.run([os.path.join(self.bin, "pg_isready"), "-h", "127.0.0.1", "-p", str(self.port)],
                              capture_output=True).returncode == 0:
                return
            time.sleep(0.1)
        sys.exit("the server did not start: " + open(os.path.join(self.folder, "server.log")).read())

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(2)  # SIGINT: fast shutdown
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
        shutil.rmtree(self.folder, ignore_errors=True)

    def psql(self, database="postgres"):
        return [os.path.join(self.bin, "psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
                "-h", "127.0.0.1", "-p", str(self.port), "-U", OWNER, "-d", database]

    def sql(self, sql, database="postgres"):
        return subprocess.run(self.psql(database) + ["-c", sql], check=True, capture_output=True,
                              text=True).stdout.strip()

    def children_cpu(self):
        """The CPU seconds of the server's processes that have ended
        (cutime + cstime of the postmaster, which reaps its backends):
        read before and after a client, the work its session did."""
        with open(f"/proc/{self.process.pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")

    def create(self, name):
        self.sql(f'DROP DATABASE IF EXISTS "{name}"')
        self.sql(f'CREATE DATABASE "{name}"')
        return f"postgresql://{OWNER}@127.0.0.1:{self.port}/{name}"


def memory_database(address):
    """The database name at the end of a catalog's address."""
    return address.rsplit("/", 1)[1]


def median(values):
    return statistics.median(values) if values else None


def first_row_and_total(command):
    """Seconds until the first line arrives on the command's standard
    output, and until the command ends, all its output read."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.readline()
    first = time.perf_counter() - start
    while process.stdout.read(1 << 20):
        pass
    errors = process.stderr.read()
    process.wait()
    total = time.perf_counter() - start
    if process.returncode != 0:
        raise RuntimeError(f"{command[0]} exited {process.returncode}: {errors.decode()[-300:]}")
    return first, total


def in_turns(pairs, runs):
    """`pairs`: {name: function returning (wall, rss or None)}; each run
    calls every one, the first turn rotating. Returns {name: [(wall, rss)]}."""
    names = list(pairs)
    figures = {name: [] for name in names}
    for run in range(runs):
        for name in names[run % len(names):] + names[:run % len(names)]:
            figures[name].append(pairs[name]())
    return figures


def checked(run, what):
    if run.status != 0:
        raise RuntimeError(f"{what}: exit {run.status}: {run.stderr[-500:]}")
    return run


# ---------------------------------------------------------------- concurrency

# What `bowties wear KEY` sends on PostgreSQL once the undo history is full
# (read from the server's log with log_statement = all, 100 wears in), as a
# pgbench script: the same statements in one transaction, each client on
# tie number `first + client_id * step` (step 0: every client on one tie).
# Left out: the three session settings at connecting (pgbench's clients keep
# theirs) and the values bowties computes in the client (the date, the
# action's title), written here as SQL. The key of tie n is gen.search_key(n).
WEAR_SCRIPT = r"""
\set n :first + :client_id * :step
SELECT "identifier" FROM "bowties_migration";
BEGIN;
SELECT pg_advisory_xact_lock(1651472244);  -- PostgreSQLStore.writeLockKey
SELECT to_regclass('"undo_action"') IS NOT NULL;
INSERT INTO "undo_action" ("id", "title", "date") SELECT coalesce(max("id"), 0) + 1, 'Wear', extract(epoch FROM clock_timestamp()) FROM "undo_action" RETURNING "id" AS action \gset
UPDATE "undo_recording" SET "action" = :action, "phase" = 0, "inserts" = 1;
SELECT "bowtie"."id" AS tie, "bowtie"."name", "bowtie"."searchKey", "bowtie"."rating", "bowtie"."timesWorn", "bowtie"."lastWorn", "bowtie"."isFavorite", "bowtie"."url", "bowtie"."tintColor", coalesce("bowtie"."photoData_sha256", '') AS photo, photoData_blob."byteCount", photoData_blob.external, (SELECT string_agg((d."name")::text, chr(31)) FROM "bowtie_tag" AS j JOIN "tag" AS d ON d."pk" = j."tag_pk" WHERE j."bowTie_id" = "bowtie"."id") AS tags FROM "bowtie" LEFT JOIN blob AS photoData_blob ON photoData_blob.sha256 = "bowtie"."photoData_sha256" WHERE bowtie."searchKey" = substr('ROYGBIV', :n % 7 + 1, 1) || :n LIMIT 1 \gset
INSERT INTO "wear" ("date", "note", "bowTie_id") VALUES (extract(epoch FROM clock_timestamp()), NULL, ':tie');
SELECT lastval();
SELECT "bowtie"."id", "bowtie"."name", "bowtie"."searchKey", "bowtie"."rating", "bowtie"."timesWorn", "bowtie"."lastWorn", "bowtie"."isFavorite", "bowtie"."url", "bowtie"."tintColor", "bowtie"."photoData_sha256", photoData_blob."byteCount", photoData_blob.external, (SELECT string_agg((d."name")::text, chr(31)) FROM "bowtie_tag" AS j JOIN "tag" AS d ON d."pk" = j."tag_pk" WHERE j."bowTie_id" = "bowtie"."id") FROM "bowtie" LEFT JOIN blob AS photoData_blob ON photoData_blob.sha256 = "bowtie"."photoData_sha256" WHERE "bowtie".id = ':tie';
SELECT value FROM setting WHERE key = 'undoLimit';
UPDATE "undo_recording" SET "action" = NULL, "phase" = 0, "inserts" = 1;
SELECT EXISTS (SELECT 1 FROM "undo_change" WHERE "action" = :action);
UPDATE "undo_action" SET "title" = 'Wear ' || :n WHERE "id" = :action;
SELECT coalesce(min("id"), 0) AS dropped FROM (SELECT "id" FROM "undo_action" WHERE "undone" > 0 AND "id" <> :action UNION SELECT "id" FROM "undo_action" WHERE "id" NOT IN (SELECT "id" FROM "undo_action" ORDER BY "id" DESC LIMIT 100)) AS old \gset
\if :dropped > 0
SELECT DISTINCT i."photoData_sha256" FROM "undo_bowtie" AS i JOIN "undo_change" AS c ON c."seq" = i."seq" WHERE c."action" IN (:dropped) AND i."photoData_sha256" IS NOT NULL;
SELECT "seq", "tableName" FROM "undo_change" WHERE ("action" IN (:dropped)) AND "operation" = 'held';
DELETE FROM "undo_change" WHERE "seq" IN (SELECT "seq" FROM "undo_change" WHERE "action" IN (:dropped) LIMIT 4096);
DELETE FROM "undo_change" WHERE "seq" IN (SELECT "seq" FROM "undo_change" WHERE "action" IN (:dropped) LIMIT 4096);
DELETE FROM "undo_action" WHERE "id" IN (:dropped);
SELECT external FROM blob WHERE sha256 = ':photo';
SELECT to_regclass('"undo_action"') IS NOT NULL;
DELETE FROM blob WHERE sha256 = ':photo' AND NOT (EXISTS (SELECT 1 FROM "bowtie" WHERE "photoData_sha256" = ':photo') OR EXISTS (SELECT 1 FROM "undo_bowtie" WHERE "photoData_sha256" = ':photo'));
\endif
COMMIT;
"""


def percentile(values, fraction):
    """The nearest-rank percentile of `values` (None when empty)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


class WearRun:
    """One level of one tool: what a reader of the table needs."""

    def __init__(self, latencies, elapsed, errors, counted, client_cpu, server_cpu, rate=None, note=""):
        self.latencies, self.elapsed, self.errors = latencies, elapsed, errors
        self.counted, self.client_cpu, self.server_cpu, self.note = counted, client_cpu, server_cpu, note
        self.rate = rate if rate is not None else (len(latencies) / elapsed if elapsed else 0)


def children_cpu_of_this_process():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def concurrency_section(server, bowties, options, work):
    """Concurrent `bowties wear` processes at each level of clients, every
    client on one tie and each on its own, next to pgbench running the same
    SQL; returns the report's lines."""
    levels = options.clients
    seconds = options.concurrency_seconds
    records = options.concurrency_records
    # Every run wears ties of its own: one, or one a client, for each
    # level, shape and tool (three tools), from tie number 1 on.
    needed = 1 + 3 * sum(1 + clients for clients in levels)
    if needed > records:
        sys.exit(f"--concurrency-records {records}: the runs wear {needed:,} ties of their own")
    pgbench = os.path.join(server.bin, "pgbench")
    if not os.path.exists(pgbench):
        sys.exit(f"no {pgbench}: apt install postgresql (it ships pgbench)")
    data = harness.data_file(records, images=True)
    address = server.create("concurrency")
    database = memory_database(address)
    log(f"concurrency: import of {records:,} records, load {' '.join(load())}")
    checked(harness.spawn([bowties, "import", data, "--images", harness.IMAGES, "--store", address]), "import")
    script = os.path.join(work, "wear.sql")
    with open(script, "w") as out:
        out.write(WEAR_SCRIPT)
    ties = {"next": 1}

    def take(count):
        """Tie numbers no run has worn yet: each run counts on ties of its own."""
        first = ties["next"]
        ties["next"] += count
        return first

    def worn(numbers):
        keys = ", ".join(f"'{gen.search_key(number)}'" for number in numbers)
        return int(server.sql(f'SELECT coalesce(sum("timesWorn"), 0) FROM bowtie WHERE "searchKey" IN ({keys})',
                              database))

    def measured(numbers, run):
        """Runs `run` (returning latencies, elapsed, errors[, rate, note]);
        adds the CPU of the clients and of the server, and the count."""
        before = worn(numbers)
        client_before, server_before = children_cpu_of_this_process(), server.children_cpu()
        latencies, elapsed, errors, rate, note = run()
        time.sleep(0.3)  # the last backends' exit, reaped
        client_cpu = children_cpu_of_this_process() - client_before
        server_cpu = server.children_cpu() - server_before
        counted = (worn(numbers) - before, len(latencies))
        return WearRun(latencies, elapsed, errors, counted, client_cpu, server_cpu, rate, note)

    def bowties_wears(clients, hot):
        first = take(1 if hot else clients)
        numbers = [first] * clients if hot else [first + client for client in range(clients)]

        def run():
            latencies, elapsed, errors, messages = run_wears(bowties, address, numbers, seconds)
            note = f"{len(messages)} wears wrote to stderr, e.g. {messages[0][:120]!r}" if messages else ""
            return latencies, elapsed, errors, None, note

        return measured(sorted(set(numbers)), run)

    def pgbench_wears(clients, hot, connect_each):
        first = take(1 if hot else clients)
        numbers = [first] if hot else [first + client for client in range(clients)]

        def run():
            prefix = os.path.join(work, "pgbench_log")
            command = [pgbench, "-n", "-h", "127.0.0.1", "-p", str(server.port), "-U", OWNER,
                       "-c", str(clients), "-j", str(clients), "-T", str(seconds), "-f", script,
                       "-D", f"first={first}", "-D", f"step={0 if hot else 1}",
                       "-l", "--log-prefix", prefix] + (["-C"] if connect_each else []) + [database]
            start = time.perf_counter()
            process = subprocess.run(command, capture_output=True, text=True, cwd=work)
            elapsed = time.perf_counter() - start
            latencies, errors = [], []
            for path in glob.glob(prefix + ".*"):
                with open(path) as lines:
                    for line in lines:
                        fields = line.split()
                        # client transaction time script epoch microseconds …
                        if len(fields) >= 3 and fields[2].isdigit():
                            latencies.append(int(fields[2]) / 1e6)
                        elif len(fields) >= 3:
                            errors.append(f"transaction {fields[2]}")
                os.remove(path)
            if process.returncode != 0:
                errors.append(f"pgbench exit {process.returncode}: {process.stderr.strip()[-300:]}")
            rate = re.search(r"^tps = ([\d.]+)", process.stdout, re.MULTILINE)
            return latencies, elapsed, errors, float(rate.group(1)) if rate else None, ""

        return measured(numbers, run)

    def connections_alone():
        """pgbench -C with `SELECT 1`, one client: what a connection costs
        the client and the server without a wear."""
        select = os.path.join(work, "select.sql")
        with open(select, "w") as out:
            out.write("SELECT 1;\n")
        client_before, server_before = children_cpu_of_this_process(), server.children_cpu()
        process = subprocess.run([pgbench, "-n", "-C", "-h", "127.0.0.1", "-p", str(server.port), "-U", OWNER,
                                  "-c", "1", "-j", "1", "-T", str(seconds), "-f", select, database],
                                 capture_output=True, text=True, cwd=work)
        time.sleep(0.3)
        client_cpu = children_cpu_of_this_process() - client_before
        server_cpu = server.children_cpu() - server_before
        done = re.search(r"^number of transactions actually processed: (\d+)", process.stdout, re.MULTILINE)
        latency = re.search(r"^latency average = ([\d.]+) ms", process.stdout, re.MULTILINE)
        if process.returncode != 0 or not done or not latency or int(done.group(1)) == 0:
            return f"pgbench -C with SELECT 1 failed: {process.stderr.strip()[-300:]}"
        count = int(done.group(1))
        return (f"A connection alone (`pgbench -C`, one client, `SELECT 1` a connection, {seconds} s): {count:,}"
                f" connections, {float(latency.group(1)):.1f} ms each on average, client CPU"
                f" {harness.seconds(client_cpu / count)} and server CPU {harness.seconds(server_cpu / count)} a"
                f" connection; load average at its end {load()[0]}.")

    tools = [
        ("bowties wear", lambda clients, hot: bowties_wears(clients, hot)),
        ("pgbench -C", lambda clients, hot: pgbench_wears(clients, hot, True)),
        ("pgbench", lambda clients, hot: pgbench_wears(clients, hot, False)),
    ]
    shapes = [("every client on one tie", True), ("each client its own tie", False)]
    results = {}
    loads = {}
    before = load()
    for level_number, clients in enumerate(levels):
        for hot_name, hot in shapes:
            # The first tool rotates from level to level, so that the
            # machine's load weighs on each alike.
            turn = level_number % len(tools)
            for name, run in tools[turn:] + tools[:turn]:
                log(f"concurrency: {name}, {clients} clients, {hot_name}, load {' '.join(load())}")
                results[(hot, clients, name)] = run(clients, hot)
                loads[(hot, clients, name)] = load()[0]
    log(f"concurrency: connections alone, load {' '.join(load())}")
    connection = connections_alone()
    after = load()
    wears = sum(len(result.latencies) for result in results.values())
    failures = [error for result in results.values() for error in result.errors]
    miscounted = [key for key, result in results.items() if result.counted[0] != result.counted[1]]
    report = [
        f"## Concurrent wears: {', '.join(str(level) for level in levels)} clients on one node",
        "",
        f"`python3 bench/postgres.py --only concurrency --concurrency-seconds {seconds}"
        f" --clients {','.join(str(level) for level in levels)} --concurrency-records {records}`"
        f" (part of `bench/run --postgres`). A catalog of {records:,} ties imported by bowties; then, at each"
        f" level, for {seconds} s, every client a loop: **bowties wear**, a whole `bowties wear KEY --store"
        " URL` process a wear (what a user or a script runs: process start, connection and scram-sha-256"
        " authentication, the wear's transaction, exit), timed from its start to its exit; **pgbench -C**,"
        " the same SQL as bowties' wear sends (`WEAR_SCRIPT` in bench/postgres.py, read from the server's"
        " log) through pgbench on a new connection a wear (connection and authentication, no process);"
        " **pgbench**, the same on one connection a client (the server's own work, and the lock queue)."
        " Every client on one tie (one row, the worst case), or each client on a tie of its own; every run"
        " on ties no run wore before. The first tool rotates from level to level. Latency: each wear's,"
        " start to end (pgbench's per-transaction log, `-l`); wears/s: wears done ÷ the run's wall"
        " (pgbench: its `tps`). Counted: the ties' `timesWorn` after, less before, against the wears that"
        " succeeded. CPU a wear: the clients' (`getrusage` of this process's children: the bowties"
        " processes, or pgbench) and the server's (the postmaster's reaped children: the backends, and"
        f" autovacuum if it ran), ÷ the wears. Load average before {' '.join(before)}, after"
        f" {' '.join(after)}; the 1-minute figure at each run's end is in the last column.",
        "",
    ]
    for hot_name, hot in shapes:
        report += [
            f"### {hot_name[0].upper() + hot_name[1:]}",
            "",
            "| clients | command | wears | wears/s | p50 | p90 | p99 | max | errors | counted |"
            " client CPU/wear | server CPU/wear | load |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for clients in levels:
            for name, _ in tools:
                result = results[(hot, clients, name)]
                done = len(result.latencies)
                counted, succeeded = result.counted
                report.append(
                    f"| {clients} | {name} | {done:,} | {result.rate:.1f} | "
                    f"{harness.seconds(percentile(result.latencies, 0.5))} | "
                    f"{harness.seconds(percentile(result.latencies, 0.9))} | "
                    f"{harness.seconds(percentile(result.latencies, 0.99))} | "
                    f"{harness.seconds(max(result.latencies) if result.latencies else None)} | "
                    f"{len(result.errors)} | {'✓' if counted == succeeded else f'✗ {counted:,} of'} {succeeded:,} | "
                    f"{harness.seconds(result.client_cpu / done if done else None)} | "
                    f"{harness.seconds(result.server_cpu / done if done else None)} | "
                    f"{loads[(hot, clients, name)]} |")
        report.append("")
    report.append(f"{wears:,} wears in all; {len(failures)} failed"
                  + (f" (first: {failures[0]})" if failures else "")
                  + (f"; miscounted: {miscounted}" if miscounted else "; every wear counted") + ".")
    report += ["", connection]
    notes = [f"{name}, {clients} clients, {'one tie' if hot else 'own ties'}: {result.note}"
             for (hot, clients, name), result in results.items() if result.note]
    if notes:
        report += [""] + [f"- {note}" for note in notes]
    report.append("")
    return report


def run_wears(bowties, address, numbers, seconds):
    """One client a tie number of `numbers` (a number may repeat: clients
    on one tie), each a loop of whole `bowties wear KEY --store ADDRESS`
    processes for `seconds`. Returns each successful wear's latency
    (process start to exit), the run's wall, the failures, and what
    successful wears wrote to standard error."""
    latencies, errors, messages = [], [], []
    guard = threading.Lock()
    ready = threading.Barrier(len(numbers) + 1)
    deadline = {}

    def client(number):
        command = [bowties, "wear", gen.search_key(number), "--store", address]
        ready.wait()
        while time.perf_counter() < deadline["at"]:
            start = time.perf_counter()
            process = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
            latency = time.perf_counter() - start
            with guard:
                if process.returncode == 0:
                    latencies.append(latency)
                    if process.stderr:
                        messages.append(process.stderr.decode("utf-8", "replace").strip())
                else:
                    errors.append(f"exit {process.returncode}: "
                                  + process.stderr.decode("utf-8", "replace").strip()[-300:])

    threads = [threading.Thread(target=client, args=(number,)) for number in numbers]
    for thread in threads:
        thread.start()
    start = time.perf_counter()
    deadline["at"] = start + seconds
    ready.wait()
    for thread in threads:
        thread.join()
    return latencies, time.perf_counter() - start, errors, messages


def process_tree_cpu(pid):
    """CPU seconds of `pid`, its reaped children and its live children:
    a server whose backends outlive the run (a pooler's) is counted too."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for path in glob.glob("/proc/[0-9]*/stat"):
        try:
            with open(path) as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(path.split("/")[2]) == pid:
            total += sum(int(field) for field in fields[11:15])
        elif int(fields[1]) == pid:
            total += int(fields[11]) + int(fields[12])
    return total / tick


def pgbouncer_section(server, bowties, options, work):
    """`bowties wear` from the most clients of --clients, each on a tie of
    its own, directly and through PgBouncer in transaction mode, in turns;
    then whether the session settings bowties makes at connecting stay on
    the pooled server connection for the next client. Returns the report's
    lines."""
    pgbouncer = shutil.which("pgbouncer") or ("/usr/sbin/pgbouncer" if os.path.exists("/usr/sbin/pgbouncer") else None)
    if not pgbouncer:
        sys.exit("no pgbouncer: apt install pgbouncer (bench/run --postgres does)")
    clients = max(options.clients)
    seconds = options.concurrency_seconds
    records = options.concurrency_records
    if clients * 4 + 2 > records:
        sys.exit(f"--concurrency-records {records}: too few ties for {clients} clients")
    address = server.create("pooled")
    database = memory_database(address)
    log(f"pgbouncer: import of {records:,} records, load {' '.join(load())}")
    checked(harness.spawn([bowties, "import", harness.data_file(records, images=True), "--images", harness.IMAGES,
                           "--store", address]), "import")
    verifier = server.sql("SELECT rolpassword FROM pg_authid WHERE rolname = current_user")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    folder = os.path.join(server.folder, "pgbouncer")
    os.makedirs(folder)
    files = {
        "userlist.txt": f'"{OWNER}" "{verifier}"\n',
        "pgbouncer.ini": (f"[databases]\n{database} = host=127.0.0.1 port={server.port} dbname={database}\n"
                          f"[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = {port}\nunix_socket_dir =\n"
                          f"auth_type = scram-sha-256\nauth_file = {folder}/userlist.txt\npool_mode = transaction\n"
                          f"default_pool_size = 8\nmax_client_conn = {clients * 2 + 10}\n"
                          f"logfile = {folder}/pgbouncer.log\n"),
    }
    for name, text in files.items():
        with open(os.path.join(folder, name), "w") as out:
            out.write(text)
    if os.getuid() == 0:
        for name in [""] + list(files):
            os.chown(os.path.join(folder, name), 65534, 65534)
    bouncer = subprocess.Popen(server.launcher + [pgbouncer, os.path.join(folder, "pgbouncer.ini")],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    pooled = f"postgresql://{OWNER}@127.0.0.1:{port}/{database}"
    try:
        deadline = time.time() + 10
        while subprocess.run([os.path.join(server.bin, "pg_isready"), "-h", "127.0.0.1", "-p", str(port)],
                             capture_output=True).returncode != 0:
            if time.time() > deadline or bouncer.poll() is not None:
                sys.exit("pgbouncer did not start: " + open(os.path.join(folder, "pgbouncer.log")).read()[-500:])
            time.sleep(0.1)
        psql = [os.path.join(server.bin, "psql"), "-X", "-A", "-t", "-h", "127.0.0.1", "-p", str(port), "-U", OWNER,
                "-d", database, "-c", "SHOW client_min_messages", "-c", "SHOW jit"]

        def seen():
            return " ".join(subprocess.run(psql, capture_output=True, text=True).stdout.split())

        settings = [f"before any bowties: `{seen()}`"]
        for command in (["count"], ["show", gen.search_key(1)], ["wear", gen.search_key(1)], ["list"]):
            checked(harness.spawn([bowties] + command + ["--store", pooled]), f"{command[0]} through pgbouncer")
            settings.append(f"after `bowties {command[0]}`: `{seen()}`")
        rows = []
        tie = {"next": 2}
        before = load()
        for round_number in range(2):
            ways = [("directly", address, server.process.pid), ("through PgBouncer", pooled, bouncer.pid)]
            for name, url, _ in (ways if round_number == 0 else ways[::-1]):
                numbers = list(range(tie["next"], tie["next"] + clients))
                tie["next"] += clients
                log(f"pgbouncer: {clients} clients {name}, load {' '.join(load())}")
                server_before, bouncer_before = process_tree_cpu(server.process.pid), process_tree_cpu(bouncer.pid)
                latencies, elapsed, errors, _ = run_wears(bowties, url, numbers, seconds)
                time.sleep(0.3)
                done = len(latencies)
                server_cpu = process_tree_cpu(server.process.pid) - server_before
                bouncer_cpu = process_tree_cpu(bouncer.pid) - bouncer_before
                rows.append(
                    f"| {name} | {done:,} | {done / elapsed:.1f} | {harness.seconds(percentile(latencies, 0.5))} | "
                    f"{harness.seconds(percentile(latencies, 0.99))} | {len(errors)} | "
                    f"{harness.seconds(server_cpu / done if done else None)} | "
                    f"{harness.seconds(bouncer_cpu / done) if done and name != 'directly' else ''} | {load()[0]} |")
        after = load()
    finally:
        bouncer.terminate()
        try:
            bouncer.wait(10)
        except subprocess.TimeoutExpired:
            bouncer.kill()
    version = subprocess.run([pgbouncer, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    return [
        f"## Through PgBouncer: {clients} clients, directly and pooled",
        "",
        f"`python3 bench/postgres.py --only pgbouncer --concurrency-seconds {seconds} --clients {clients}"
        f" --concurrency-records {records}`. {version}, `pool_mode = transaction`, `default_pool_size = 8`,"
        f" scram-sha-256 for its clients, in front of the same server. {clients} clients of whole `bowties wear`"
        f" processes, each on a tie of its own, {seconds} s a run, directly and through PgBouncer, in turns,"
        " two rounds. Server CPU: the postmaster's and its backends' (the pooled backends outlive a run);"
        f" PgBouncer's its own. Load average before {' '.join(before)}, after {' '.join(after)}; the 1-minute"
        " figure at each run's end is in the last column.",
        "",
        "| way | wears | wears/s | p50 | p99 | errors | server CPU/wear | PgBouncer CPU/wear | load |",
        "|---|---|---|---|---|---|---|---|---|",
    ] + rows + [
        "",
        "The session settings bowties makes at connecting, as the next client of the pool sees them"
        " (`SHOW client_min_messages`, `SHOW jit` by psql through PgBouncer; the server's defaults are"
        " `notice on`): " + "; ".join(settings) + ".",
        "",
    ]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--postgres", action="store_true", help="(bench/run's switch; ignored here)")
    parser.add_argument("--records", type=size_argument, default=100_000,
                        help="the import's size (default 100k)")
    parser.add_argument("--large", type=size_argument, default=1_000_000,
                        help="the size list and export stream, and whose import's memory is measured (default 1M)")
    parser.add_argument("--runs", type=int, default=3, help="runs of each import (default 3)")
    parser.add_argument("--short-runs", type=int, default=21, help="runs of show and wear (default 21)")
    parser.add_argument("--large-runs", type=int, default=3,
                        help="runs of the imports whose peak RSS the large section measures, at --records and"
                             " at --large, in turns (default 3)")
    parser.add_argument("--only", default="import,server,short,large,concurrency",
                        help="the sections to run, of import (the import against \\copy), server (psql's \\copy"
                             " into the catalog's table, schema v3 and v2, and the plain one), short (show and wear"
                             " against psql -c), large (the large import's memory, list and export streamed) and"
                             " concurrency (wears from 1 to 64 concurrent clients, next to pgbench running the"
                             " same SQL: docs/SCALING.md); default all. Also pgbouncer (the most clients of"
                             " --clients directly and through PgBouncer in transaction mode; not in the default"
                             " set). The results file is written only for import, short and large together.")
    parser.add_argument("--clients", type=client_levels, default=[1, 8, 32, 64],
                        help="the concurrency section's levels of concurrent clients (default 1,8,32,64)")
    parser.add_argument("--concurrency-seconds", type=int, default=12,
                        help="how long each run of the concurrency section lasts: a level, a shape and a tool"
                             " (default 12 s; 25 runs, under 6 minutes in all)")
    parser.add_argument("--concurrency-records", type=size_argument, default=10_000,
                        help="the ties of the concurrency section's catalog (default 10k)")
    options = parser.parse_args(argv)
    sections = set(options.only.split(","))
    if not sections <= {"import", "server", "short", "large", "concurrency", "pgbouncer"}:
        sys.exit(f"--only: {options.only}: import, server, short, large, concurrency, pgbouncer")
    bowties = os.environ.get("BOWTIES_BIN") or sys.exit("BOWTIES_BIN: the bowties binary to measure")
    os.environ.update({"PGPASSWORD": PASSWORD, "PGPASSFILE": "/nonexistent", "PGSERVICEFILE": "/nonexistent"})
    for name in ["PGHOST", "PGPORT", "PGUSER", "PGDATABASE", "PGSSLMODE"]:
        os.environ.pop(name, None)

    report = []
    server = Server()
    work = tempfile.mkdtemp(prefix="bowties-bench-pg-files-")
    try:
        start = time.perf_counter()
        server.start()
        version = server.sql("SHOW server_version")
        log(f"server {version} on port {server.port} in {time.perf_counter() - start:.1f} s")
        commit = subprocess.run(["git", "-C", BENCH, "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip()
        with open(bowties, "rb") as binary:
            digest = hashlib.sha256(binary.read()).hexdigest()[:16]
        report += [
            "# bowties on PostgreSQL, next to psql",
            "",
            f"`bench/run --postgres --records {options.records} --large {options.large} --runs {options.runs}"
            + ("" if sections == {"import", "server", "short", "large", "concurrency"} else f" --only {options.only}")
            + "`"
            f" on {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, commit {commit},"
            f" bowties {digest}… (release), PostgreSQL {version} on loopback, {os.cpu_count()} cores."
            " Server settings as the test server's: fsync, full_page_writes and synchronous_commit off,"
            " shared_buffers 16 MB, 100 connections. Clients authenticate with scram-sha-256 (PGPASSWORD).",
            "",
        ]
        images = harness.IMAGES
        # The catalog and files the sections other than concurrency share.
        if sections - {"concurrency", "pgbouncer"}:
            data = harness.data_file(options.records, images=True)

            # ------------------------------------------------ the import
            log(f"import of {options.records:,} records, load {' '.join(load())}")
            first = server.create("warm")
            checked(harness.spawn([bowties, "import", data, "--images", images, "--store", first]), "import")
            columns = [row for row in server.sql(
                "SELECT string_agg(quote_ident(column_name), ', ' ORDER BY ordinal_position) FROM "
                "information_schema.columns WHERE table_name = 'bowtie' AND column_name <> 'rowid'", "warm").split("\n")][0]
            indexes = server.sql(
                "SELECT indexdef FROM pg_indexes WHERE tablename = 'bowtie' AND indexname <> 'bowtie_pkey'",
                "warm").split("\n")
            csv_path = os.path.join(work, "bowtie.csv")
            binary_path = os.path.join(work, "bowtie.bin")
            server.sql(f"\\copy (SELECT {columns} FROM bowtie ORDER BY rowid) TO '{csv_path}' CSV", "warm")
            server.sql(f"\\copy (SELECT {columns} FROM bowtie ORDER BY rowid) TO '{binary_path}' (FORMAT binary)", "warm")
            server.sql('CREATE DATABASE "plain"')
            # The plain table: the catalog's columns, key and indexes, no
            # triggers, no foreign key, no identity.
            definition = server.sql(
                "SELECT string_agg(quote_ident(column_name) || ' ' || format_type(atttypid, atttypmod), ', ' "
                "ORDER BY ordinal_position) FROM information_schema.columns JOIN pg_attribute "
                "ON attrelid = 'bowtie'::regclass AND attname = column_name "
                "WHERE table_name = 'bowtie' AND column_name <> 'rowid'", "warm")
            plain_indexes = []
            for number, index in enumerate(index for index in indexes if index and "(rowid)" not in index):
                head, _, rest = index.partition(" ON public.bowtie ")
                kind = head.rsplit(" ", 1)[0]  # CREATE [UNIQUE] INDEX
                # The orders' indexes end with the row number (schema v2),
                # which the plain table does not have: the same keys without it.
                rest = rest.replace(", rowid)", ")")
                plain_indexes.append(f"{kind} plain_{number} ON public.plain {rest};")
            plain_table = ("DROP TABLE IF EXISTS plain; "
                           f"CREATE TABLE plain ({definition}, PRIMARY KEY (id)); " + " ".join(plain_indexes))
        runs = {"import": 0}

        def server_cpu_of(command, what):
            """Runs `command`; its wall, peak RSS, CPU, and the server's CPU
            for it (its backend's, once it ended; autovacuum's too)."""
            before = server.children_cpu()
            run = checked(harness.timed(command), what)
            time.sleep(0.3)  # the backend's exit, reaped
            return run.wall, run.rss, run.cpu, server.children_cpu() - before

        def bowties_import():
            runs["import"] += 1
            address = server.create(f"import{runs['import']}")
            return server_cpu_of([bowties, "import", data, "--images", images, "--store", address],
                                 "bowties import")

        def psql_copy(source, options_text, staged=False):
            def measure():
                server.sql(plain_table, "plain")
                if staged:
                    command = server.psql("plain") + [
                        "-1", "-c", "CREATE TEMP TABLE staged (LIKE plain)",
                        "-c", f"\\copy staged FROM '{source}' {options_text}",
                        "-c", "INSERT INTO plain SELECT * FROM staged"]
                else:
                    command = server.psql("plain") + ["-c", f"\\copy plain FROM '{source}' {options_text}"]
                return server_cpu_of(command, "psql \\copy")
            return measure

        imports = {} if "import" not in sections else in_turns({
            "bowties import": bowties_import,
            "psql \\copy CSV": psql_copy(csv_path, "CSV"),
            "psql \\copy binary": psql_copy(binary_path, "(FORMAT binary)"),
            "psql \\copy binary to a staging table, INSERT … SELECT": psql_copy(binary_path, "(FORMAT binary)", True),
        }, options.runs)
        after = load()
        csv_median = median([wall for wall, *_ in imports["psql \\copy CSV"]]) if imports else None
        csv_cpu = median([client + server_cpu for _, _, client, server_cpu in imports["psql \\copy CSV"]]) \
            if imports else None
        if imports:
            report += [
                f"## Import of {options.records:,} records",
                "",
                f"The bench's XML property list ({os.path.getsize(data) / 1e6:.0f} MB, photos by name from"
                " SampleData/Images) into a new database, against psql's `\\copy` of the same records (exported"
                " from the catalog) into a plain table with the catalog's columns, key and indexes (`id`, the"
                " unique search key and its case-folded lookup, the photo's hash), no trigger,"
                f" no foreign key, a new one each run. {options.runs} runs each, in turns; load average at the end"
                f" {' '.join(after)}.",
                "",
                "| command | median wall | runs | peak RSS | ÷ psql \\copy CSV | client CPU | server CPU |"
                " client + server CPU | ÷ psql \\copy CSV (CPU) |",
                "|---|---|---|---|---|---|---|---|---|",
            ]
            for name, figures in imports.items():
                walls = [wall for wall, *_ in figures]
                rss = max(value for _, value, *_ in figures)
                clients = [client for _, _, client, _ in figures]
                servers = [server_cpu for *_, server_cpu in figures]
                both = median([client + server_cpu for client, server_cpu in zip(clients, servers)])
                report.append(f"| {name} | {harness.seconds(median(walls))} | "
                              f"{', '.join(harness.seconds(wall) for wall in walls)} | {harness.mib(rss)} | "
                              f"{harness.times(median(walls) / csv_median)} | "
                              f"{harness.seconds(median(clients))} | {harness.seconds(median(servers))} | "
                              f"{harness.seconds(both)} | {harness.times(both / csv_cpu)} |")
            report += [
                "",
                "CPU: the client's user + system time (`/usr/bin/time`), and the server's for it (the"
                " postmaster's reaped children's, before and after each run: the backend, and autovacuum"
                " if it ran). Under load, wall is a share of a contended CPU; the CPU columns are steadier.",
                "",
            ]

        # ------------------------------------------------ the server's share
        # The same binary rows copied by psql into the catalog's own table
        # (schema v3: the photo's reference checked by statement triggers),
        # into it with v2's foreign key in their place (checked row by row),
        # and into the plain table: what the schema costs before any client.
        if "server" in sections:
            log(f"psql \\copy into the catalog's table, v3 and v2, load {' '.join(load())}")
            blob_path = os.path.join(work, "blob.bin")
            server.sql(f"\\copy (SELECT sha256, \"byteCount\", external, data FROM blob) TO '{blob_path}' (FORMAT binary)",
                       "warm")
            for template in ["template_v3", "template_v2"]:
                server.sql(f'DROP DATABASE IF EXISTS "{template}"')
                address = server.create(template)
                checked(harness.spawn([bowties, "migrate", "--store", address]), "migrate")
                server.sql(f"\\copy blob (sha256, \"byteCount\", external, data) FROM '{blob_path}' (FORMAT binary)",
                           template)
            server.sql(
                'DROP TRIGGER "bowtie_photoData_sha256_insert" ON bowtie; '
                'DROP TRIGGER "bowtie_photoData_sha256_update" ON bowtie; '
                'DROP TRIGGER "blob_referenced_delete" ON blob; DROP TRIGGER "blob_referenced_update" ON blob; '
                'ALTER TABLE bowtie ADD CONSTRAINT "bowtie_photoData_sha256_fkey" FOREIGN KEY ("photoData_sha256") '
                'REFERENCES blob (sha256) DEFERRABLE', "template_v2")
            copies = {"count": 0}
            # The server process's CPU time, read by it at the end of the
            # session (/proc/self/stat: utime + stime): steadier under load
            # than wall time. The bench's owner is the cluster's superuser.
            cpu_sql = ("SELECT split_part(pg_read_file('/proc/self/stat'), ' ', 14)::bigint"
                       " + split_part(pg_read_file('/proc/self/stat'), ' ', 15)::bigint")
            cpu_file = os.path.join(work, "cpu.txt")

            def server_cpu():
                return int(open(cpu_file).read().strip()) / os.sysconf("SC_CLK_TCK")

            def copy_into(template):
                def measure():
                    copies["count"] += 1
                    database = f"copy{copies['count']}"
                    server.sql(f'DROP DATABASE IF EXISTS "{database}"')
                    server.sql(f'CREATE DATABASE "{database}" TEMPLATE "{template}"')
                    # As bowties' import: the undo history's insert triggers off.
                    command = server.psql(database) + [
                        "-c", "SET bowties.undo_inserts = off",
                        "-c", f"\\copy bowtie ({columns}) FROM '{binary_path}' (FORMAT binary)", "-c", cpu_sql]
                    run = checked(harness.timed(command, cpu_file), "psql \\copy")
                    server.sql(f'DROP DATABASE "{database}"')
                    return run.wall, server_cpu()
                return measure

            def copy_plain():
                server.sql(plain_table, "plain")
                run = checked(harness.timed(server.psql("plain") + [
                    "-c", f"\\copy plain FROM '{binary_path}' (FORMAT binary)", "-c", cpu_sql], cpu_file), "psql \\copy")
                return run.wall, server_cpu()

            shares = in_turns({
                "the catalog's bowtie, v3 (statement triggers)": copy_into("template_v3"),
                "the catalog's bowtie, v2 (foreign key)": copy_into("template_v2"),
                "the plain table": copy_plain,
            }, options.runs)
            after = load()
            plain_cpu = median([cpu for _, cpu in shares["the plain table"]])
            report += [
                f"## The server's share: psql \\copy of the same {options.records:,} binary rows",
                "",
                "Into a new copy of the catalog's `bowtie` table (schema v3, the photo's reference checked by"
                " statement triggers), into it with schema v2's foreign key in their place (checked row by row),"
                " and into the plain table above; the undo history's insert triggers off, as bowties' import"
                " sets them. Server CPU: the server process's user and system time, which it reads at the"
                f" session's end. {options.runs} runs each, in turns; load average at the end {' '.join(after)}.",
                "",
                "| into | median wall | server CPU, median | server CPU, runs | ÷ plain (CPU) |",
                "|---|---|---|---|---|",
            ]
            for name, figures in shares.items():
                walls = [wall for wall, _ in figures]
                cpus = [cpu for _, cpu in figures]
                report.append(f"| {name} | {harness.seconds(median(walls))} | {harness.seconds(median(cpus))} | "
                              f"{', '.join(harness.seconds(cpu) for cpu in cpus)} | "
                              f"{harness.times(median(cpus) / plain_cpu)} |")
            report.append("")

        # ------------------------------------------------ show and wear
        if "short" in sections:
            database = f"import{runs['import']}" if runs["import"] else "warm"
            address = f"postgresql://{OWNER}@127.0.0.1:{server.port}/{database}"
            key = gen.search_key(options.records // 2)
            log(f"show and wear {key}, load {' '.join(load())}")
            results = {}
            show_sql = f"SELECT * FROM bowtie WHERE \"searchKey\" = '{key}'"
            wear_sql = ("INSERT INTO wear (date, note, \"bowTie_id\") SELECT extract(epoch FROM now()), NULL, id "
                        f"FROM bowtie WHERE \"searchKey\" = '{key}'")
            harness.measure_short(results, {
                "bowties show": [bowties, "show", key, "--store", address],
                "psql -c SELECT": server.psql(database) + ["-c", show_sql],
            }, options.short_runs)
            harness.measure_short(results, {
                "bowties wear": [bowties, "wear", key, "--store", address],
                "psql -c INSERT": server.psql(database) + ["-c", wear_sql],
            }, options.short_runs)
            after = load()
            report += [
                f"## show and wear at {options.records:,}",
                "",
                f"On the last import's catalog, KEY {key} (the middle record); psql runs the SQL that does the"
                " same work (`SELECT * … WHERE \"searchKey\" = KEY`; `INSERT INTO wear … SELECT … WHERE"
                " \"searchKey\" = KEY`, whose triggers update `timesWorn` and `lastWorn` as bowties' wear does;"
                " bowties also takes the write lock and records the undo history). Whole processes, connection"
                f" and authentication included; {options.short_runs} runs each in turns; load average at the"
                f" end {' '.join(after)}.",
                "",
                "| command | median wall | peak RSS | ratio |",
                "|---|---|---|---|",
            ]
            for ours, theirs in [("bowties show", "psql -c SELECT"), ("bowties wear", "psql -c INSERT")]:
                mine, floor = results[ours], results[theirs]
                for name, result in [(ours, mine), (theirs, floor)]:
                    if result.failure:
                        raise RuntimeError(f"{name}: {result.failure}")
                ratio = median(mine.walls) / median(floor.walls)
                report.append(f"| {ours} | {harness.seconds(median(mine.walls))} | {harness.mib(max(mine.rss))} | "
                              f"{harness.times(ratio)} |")
                report.append(f"| {theirs} | {harness.seconds(median(floor.walls))} | {harness.mib(max(floor.rss))} | |")
            report.append("")

        # ------------------------------------------------ the large catalog
        if "large" in sections:
            large = harness.data_file(options.large, images=True)
            large_runs = max(1, options.large_runs)
            # The import's peak RSS at both sizes, each a new database,
            # in turns: flat means the same at 10× the records.
            log(f"imports of {options.records:,} and {options.large:,} records ({large_runs} runs each),"
                f" load {' '.join(load())}")
            memory_runs = {options.records: [], options.large: []}
            for run in range(large_runs):
                for size, source in [(options.records, data), (options.large, large)]:
                    address = server.create(f"memory{size}")
                    memory_runs[size].append(checked(
                        harness.timed([bowties, "import", source, "--images", images, "--store", address]),
                        f"import ({size:,})"))
            # The last large import stays: list and export read it.
            big = address
            memory_load = load()
            export_sql = (f"\\copy (SELECT {columns} FROM bowtie ORDER BY rowid) TO STDOUT CSV")
            readers = {"bowties list": [bowties, "list", "--store", big]}
            for name in ["csv", "tsv", "json", "jsonl", "plist", "table"]:
                readers[f"bowties export --format {name}"] = [bowties, "export", "--format", name, "--store", big]
            readers["psql \\copy … TO STDOUT CSV"] = server.psql(memory_database(big)) + ["-c", export_sql]
            log(f"list and export of {options.large:,}, load {' '.join(load())}")
            streams = in_turns({name: (lambda command=command: first_row_and_total(command))
                                for name, command in readers.items()}, max(1, min(options.runs, 3)))
            memory = {name: checked(harness.timed(command), name).rss for name, command in readers.items()}
            after = load()
            report += [
                f"## {options.large:,} records: the import's memory, list and export streamed",
                "",
                f"The import of {os.path.getsize(data) / 1e6:.0f} MB ({options.records:,} records) and of"
                f" {os.path.getsize(large) / 1e6:.0f} MB ({options.large:,} records), each into a new database,"
                f" {large_runs} runs each in turns (load average at the end {' '.join(memory_load)}):",
                "",
                "| import of | peak RSS (median) | runs | median wall |",
                "|---|---|---|---|",
            ]
            for size, runs_of_size in memory_runs.items():
                report.append(
                    f"| {size:,} | {harness.mib(median([run.rss for run in runs_of_size]))} | "
                    f"{', '.join(harness.mib(run.rss) for run in runs_of_size)} | "
                    f"{harness.seconds(median([run.wall for run in runs_of_size]))} |")
            report += [
                "",
                f"Then, on the last {options.large:,} catalog, in turns, {max(1, min(options.runs, 3))} runs each:"
                " the time until the first line arrives on a pipe (the first 64 KiB an export writes), and"
                " until the last; peak RSS from one more run each. `export --format table` into a pipe sizes"
                " its columns from the first 100 ties, as `list` does (`--widths all` would read every row first)."
                f" Load average at the end {' '.join(after)}.",
                "",
                "| command | first row (median) | all rows (median) | peak RSS |",
                "|---|---|---|---|",
            ]
            for name, figures in streams.items():
                report.append(f"| {name} | {harness.seconds(median([first for first, _ in figures]))} | "
                              f"{harness.seconds(median([total for _, total in figures]))} | "
                              f"{harness.mib(memory[name])} |")
            report.append("")

        # ------------------------------------------------ concurrent wears
        if "concurrency" in sections:
            report += concurrency_section(server, bowties, options, work)
        if "pgbouncer" in sections:
            report += pgbouncer_section(server, bowties, options, work)
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    text = "\n".join(report) + "\n"
    sys.stdout.write(text)
    if sections >= {"import", "short", "large"}:
        os.makedirs(os.path.dirname(RESULTS), exist_ok=True)
        with open(RESULTS, "w") as out:
            out.write(text)
        log(f"written to {RESULTS}")


if __name__ == "__main__":
    main(sys.argv[1:])
