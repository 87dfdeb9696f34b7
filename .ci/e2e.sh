#!/usr/bin/env bash
# The acceptance list of bowties, scripted against a built binary.
#
#   bash .ci/e2e.sh                      # uses .build/debug/bowties
#   BOWTIES_BIN=path/to/bowties bash .ci/e2e.sh
#
# Every check prints `ok - ...` or `not ok - ...`; the last line is
# `N passed, M failed` and the script exits 1 when M > 0. Everything runs on
# temporary stores; nothing outside a temporary folder is touched.
#
# E2E_POSTGRES=postgresql://OWNER@HOST:PORT (no database; the password in
# PGPASSFILE or ~/.pgpass, never in the address) runs the same checks on
# PostgreSQL catalogs, each store a new database the owner creates (.ci/run
# starts a throwaway cluster with .ci/postgres). What looks at the SQLite
# file itself (its photo folder, its lock, its bytes as another user) runs
# on SQLite only, and the PostgreSQL pass checks its own counterparts:
# photos in the database, `pg_dump` for "unchanged", a read-only role.
#
# The last check runs the README's set-up line (`swift run bowties import &&
# swift run bowties list`). Set SWIFT_RUN_FLAGS (e.g. "--scratch-path
# .build-e2e") to pass flags to `swift run`, or SKIP_SWIFT_RUN=1 to skip it.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=${BOWTIES_BIN:-.build/debug/bowties}
case $BIN in /*) ;; *) BIN=$ROOT/$BIN ;; esac
[[ -x $BIN ]] || { echo "e2e: no executable at $BIN (run swift build first)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "e2e: python3 is required" >&2; exit 2; }

SAMPLE=$ROOT/SampleData/SampleData.plist
IMAGES=$ROOT/SampleData/Images
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bowties-e2e.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export NO_COLOR=1
PG=${E2E_POSTGRES:-}
PG=${PG%/}
if [[ -n $PG ]]; then
    command -v psql >/dev/null && command -v pg_dump >/dev/null ||
        { echo "e2e: E2E_POSTGRES needs psql and pg_dump (apt-get install postgresql-client)" >&2; exit 2; }
fi
# sqlite_only: whether this pass is on SQLite files.
sqlite_only() { [[ -z $PG ]]; }
# store_at NAME: the address of a new, empty catalog: $WORK/NAME/catalog.sqlite,
# or a new database e2e_NAME.
store_at() {
    if sqlite_only; then
        echo "$WORK/$1/catalog.sqlite"
    else
        PGOPTIONS="-c client_min_messages=warning" psql "$PG/postgres" -qAtX -v ON_ERROR_STOP=1 -c "DROP DATABASE IF EXISTS e2e_$1" -c "CREATE DATABASE e2e_$1" >/dev/null
        echo "$PG/e2e_$1"
    fi
}
if sqlite_only; then MAIN=$WORK/catalog.sqlite; else MAIN=$(store_at main); fi
export BOWTIES_STORE=$MAIN
export XDG_DATA_HOME=$WORK/xdg
unset BOWTIES_SAMPLE_DATA
SUPPORT=$WORK/.catalog_SUPPORT/_EXTERNAL_DATA

passed=0
failed=0
rc=0
last_args=
ok() { passed=$((passed + 1)); echo "ok - $1"; }
not_ok() {
    failed=$((failed + 1))
    echo "not ok - $1"
    shift
    for detail in "$@"; do printf '#   %s\n' "$detail"; done
}
# check DESCRIPTION COMMAND...: ok when COMMAND succeeds; on failure, show
# what the last `bt` printed.
check() {
    local description=$1
    shift
    if "$@"; then ok "$description"; else not_ok "$description" "last: bowties ${last_args:-}" "exit $rc" "stdout: $(head -c 600 "$WORK/out")" "stderr: $(head -c 600 "$WORK/err")"; fi
}
# bt ARGS...: runs bowties; $rc, $WORK/out and $WORK/err hold the outcome.
bt() {
    last_args="$*"
    rc=0
    "$BIN" "$@" </dev/null >"$WORK/out" 2>"$WORK/err" || rc=$?
}
out_has() { grep -qF -- "$1" "$WORK/out"; }
err_has() { grep -qF -- "$1" "$WORK/err"; }
times_worn() { "$BIN" show "$1" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["timesWorn"])'; }
rating() { "$BIN" show "$1" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["rating"])'; }
today=$(date -u +%F)

echo "# bowties: $BIN"
echo "# store: $BOWTIES_STORE"
# pg_sql STORE STATEMENT: runs it on a PostgreSQL catalog, rows as a|b|c.
pg_sql() { psql "$1" -qAtX -F '|' -v ON_ERROR_STOP=1 -c "$2"; }

# --- import, twice -----------------------------------------------------------
bt import
check "import adds the 7 sample ties" eval '[[ $rc == 0 ]] && out_has "added 7, updated 0, unchanged 0"'
bt import
check "a second import adds 0 and leaves 7 unchanged" eval '[[ $rc == 0 ]] && out_has "added 0, updated 0, unchanged 7"'
"$BIN" export >"$WORK/fresh.csv"

# --- show, wear, show ----------------------------------------------------------
bt show R
check "show R: rating 3.5, worn 12 times, last 2014-06-19" eval '[[ $rc == 0 ]] && out_has "Rating: 3.5/5" && out_has "# times worn: 12" && out_has "Last worn: 2014-06-19 18:15:24 UTC"'
bt wear R
check "wear R succeeds" eval '[[ $rc == 0 ]] && out_has "13 times so far."'
bt show R
check "show R after wear: worn 13 times, last worn today ($today UTC)" eval '[[ $rc == 0 ]] && out_has "# times worn: 13" && out_has "Last worn: $today " && out_has "(today)"'

# --- rate out of range ---------------------------------------------------------
bt rate R 6
check "rate R 6: exit 65, stderr says 'rating is too large.'" eval '[[ $rc == 65 ]] && err_has "rating is too large."'
check "rate R 6 left the rating at 3.5" eval '[[ $(rating R) == 3.5 ]]'
bt rate R -1
check "rate R -1: exit 65, stderr says 'rating is too small.'" eval '[[ $rc == 65 ]] && err_has "rating is too small."'
check "rate R -1 left the rating at 3.5" eval '[[ $(rating R) == 3.5 ]]'

# --- export against the plist --------------------------------------------------
csv_matches_plist() {
    python3 - "$1" "$SAMPLE" "$IMAGES" "$2" <<'EOF'
import csv, hashlib, os, plistlib, sys
csv_path, plist_path, images, r_worn_extra = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
raw = open(csv_path, "rb").read()
problems = []
if raw.count(b"\r\n") != raw.count(b"\n"):
    problems.append("some lines do not end with CRLF")
rows = list(csv.reader(open(csv_path, newline="", encoding="utf-8")))
if len(rows) != 8:
    problems.append(f"{len(rows)} rows, expected 8")
header = rows[0]
expected_header = ["id", "name", "searchKey", "rating", "timesWorn", "lastWorn", "isFavorite",
                   "url", "tintColor", "photoBytes", "photoSHA256", "tags",
                   "timesWornBefore", "lastWornBefore", "wears"]
if header != expected_header:
    problems.append(f"header {header}")
by_id = {row[0]: dict(zip(header, row)) for row in rows[1:]}
for tie in plistlib.load(open(plist_path, "rb")):
    row = by_id.get(tie["id"])
    if row is None:
        problems.append(f"no row for {tie['id']}")
        continue
    image = os.path.join(images, tie["imageName"])
    if not os.path.exists(image):
        image += ".png"
    c = tie["tintColor"]
    worn = tie["timesWorn"] + (r_worn_extra if tie["searchKey"] == "R" else 0)
    expected = {
        "name": tie["name"], "searchKey": tie["searchKey"], "id": tie["id"],
        "timesWorn": str(worn),
        "lastWorn": tie["lastWorn"].strftime("%Y-%m-%dT%H:%M:%SZ"),
        "isFavorite": "true" if tie["isFavorite"] else "false",
        "url": tie["url"],
        "tintColor": "#%02X%02X%02X" % (c["red"], c["green"], c["blue"]),
        "photoBytes": str(os.path.getsize(image)),
        "photoSHA256": hashlib.sha256(open(image, "rb").read()).hexdigest(),
        "tags": ", ".join(sorted(tie.get("tags", []), key=str.lower)),
        # What the tie had before its history began: the plist's values.
        "timesWornBefore": str(tie["timesWorn"]),
        "lastWornBefore": tie["lastWorn"].strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    for key, value in expected.items():
        if row.get(key) != value:
            problems.append(f"{tie['searchKey']} {key}: {row.get(key)!r} != {value!r}")
    if float(row["rating"]) != float(tie["rating"]):
        problems.append(f"{tie['searchKey']} rating: {row['rating']!r} != {tie['rating']!r}")
for problem in problems:
    print("#   " + problem)
sys.exit(1 if problems else 0)
EOF
}
check "export (fresh store) parses as CSV into header + 7 rows equal to the plist's values" csv_matches_plist "$WORK/fresh.csv" 0
bt export
cp "$WORK/out" "$WORK/worn.csv"
check "export after one wear: the same, R worn once more (lastWorn aside)" eval '[[ $rc == 0 ]] && python3 -c "
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline=\"\")))
r = [row for row in rows if row[2] == \"R\"][0]
sys.exit(0 if len(rows) == 8 and r[4] == \"13\" and r[5].startswith(\"$today\") else 1)" "$WORK/worn.csv"'

# --- photos --------------------------------------------------------------------
bt photo R --output "$WORK/red.png"
check "photo R --output (inline) is byte-identical to red.png" eval '[[ $rc == 0 ]] && cmp -s "$WORK/red.png" "$IMAGES/red.png"'
bt photo B --output "$WORK/blue.png"
check "photo B --output (external) is byte-identical to blue.png" eval '[[ $rc == 0 ]] && cmp -s "$WORK/blue.png" "$IMAGES/blue.png"'
if sqlite_only; then
external_files_are_the_large_photos() {
    local expected actual
    expected=$(cd "$IMAGES" && sha256sum blue.png violet.png | cut -c1-64 | sort)
    actual=$(ls -A "$SUPPORT" | sort)
    [[ $expected == "$actual" ]] || { echo "#   expected: $expected"; echo "#   found: $actual"; return 1; }
}
check "exactly 2 files in .catalog_SUPPORT/_EXTERNAL_DATA, named by the SHA-256 of blue.png and violet.png" external_files_are_the_large_photos
inline_photos_have_no_file() {
    local image
    for image in red orange yellow green indigo; do
        [[ ! -e $SUPPORT/$(sha256sum <"$IMAGES/$image.png" | cut -c1-64) ]] || return 1
    done
}
check "the inline photos have no file beside the store" inline_photos_have_no_file
external_files_match_their_names() {
    local file
    for file in "$SUPPORT"/*; do
        [[ $(sha256sum <"$file" | cut -c1-64) == "$(basename "$file")" ]] || return 1
    done
}
check "each external file's SHA-256 is its name" external_files_match_their_names
else
check "photos are in the database: 7 rows of blob, each with data whose SHA-256 is its key" \
    eval '[[ $(pg_sql "$MAIN" "SELECT count(*) FROM blob WHERE encode(sha256(data), '\''hex'\'') = sha256") == 7 ]]'
fi

# --- an XML external entity ----------------------------------------------------
secret="bowties-secret-$RANDOM$RANDOM-do-not-leak"
echo "$secret" >"$WORK/secret.txt"
mkdir -p "$WORK/xxe"
cat >"$WORK/xxe/Entity.plist" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist [
  <!ENTITY xxe SYSTEM "file://$WORK/secret.txt">
]>
<plist version="1.0">
<array>
	<dict>
		<key>name</key>
		<string>&xxe;</string>
		<key>searchKey</key>
		<string>X</string>
	</dict>
</array>
</plist>
EOF
bt import "$WORK/xxe/Entity.plist"
cp "$WORK/out" "$WORK/xxe.out"
cp "$WORK/err" "$WORK/xxe.err"
check "a plist with an external entity is refused (exit 65, internal DTD subset)" eval '[[ $rc == 65 ]] && err_has "Entity.plist:2:1:" && err_has "internal DTD subset"'
# The same reference with no declaration at all.
grep -v -e '<!DOCTYPE' -e '<!ENTITY' -e '^]>' "$WORK/xxe/Entity.plist" >"$WORK/xxe/Undeclared.plist"
bt import "$WORK/xxe/Undeclared.plist"
cp "$WORK/out" "$WORK/xxe2.out"
cp "$WORK/err" "$WORK/xxe2.err"
check "an undeclared entity reference is refused (exit 65)" eval '[[ $rc == 65 ]] && err_has "&xxe;"'
"$BIN" export >"$WORK/xxe.csv"
"$BIN" list --json >"$WORK/xxe.json"
sqlite_only || pg_dump "$MAIN" >"$WORK/main.dump"
no_secret_anywhere() {
    if grep -rlaF -- "$secret" "$WORK/xxe.out" "$WORK/xxe.err" "$WORK/xxe2.out" "$WORK/xxe2.err" \
        "$WORK/xxe.csv" "$WORK/xxe.json" "$WORK"/catalog.sqlite* "$WORK/.catalog_SUPPORT" "$WORK"/main.dump 2>/dev/null; then
        return 1
    fi
}
check "the secret appears in no output, no export and not in the store" no_secret_anywhere
check "the refused plists changed nothing (export identical, X absent)" eval 'cmp -s "$WORK/xxe.csv" "$WORK/worn.csv" && ! grep -q ",X," "$WORK/xxe.csv"'

# --- a rating of 7 in the fifth record ----------------------------------------
mkdir -p "$WORK/bad"
python3 - "$SAMPLE" "$WORK/bad/Rating7.plist" <<'EOF'
import plistlib, sys
ties = plistlib.load(open(sys.argv[1], "rb"))
assert len(ties) == 7
ties[4]["rating"] = 7.0
plistlib.dump(ties, open(sys.argv[2], "wb"))
EOF
# A fresh store: records 1-4 would be added if the import were not all or nothing.
export BOWTIES_STORE=$(store_at fresh)
if sqlite_only; then
    "$BIN" config --photo-threshold 102400 >/dev/null
else
    # A database holds no catalog until the owner's first import makes one.
    echo "[]" >"$WORK/empty.json" && "$BIN" import "$WORK/empty.json" >/dev/null
fi
"$BIN" export >"$WORK/empty-before.csv"
bt import "$WORK/bad/Rating7.plist" --images "$IMAGES"
check "a rating of 7 in record 5 of 7: exit 65, located, 'rating is too large.'" eval '[[ $rc == 65 ]] && err_has "Rating7.plist:" && err_has "record 5" && err_has "rating is too large."'
"$BIN" export >"$WORK/empty-after.csv"
check "...and the fresh store is unchanged (export identical: header only)" eval 'cmp -s "$WORK/empty-before.csv" "$WORK/empty-after.csv" && [[ $(wc -l <"$WORK/empty-after.csv") == 1 ]]'
if sqlite_only; then
    check "...and no photo file was left under .catalog_SUPPORT" eval '[[ -z $(find "$WORK/fresh/.catalog_SUPPORT" -type f 2>/dev/null) ]]'
else
    check "...and no photo was left in the database" eval '[[ $(pg_sql "$BOWTIES_STORE" "SELECT count(*) FROM blob") == 0 ]]'
fi
export BOWTIES_STORE=$MAIN
# The main store with --update: record 1 (R, worn 13 times here) would go back to 12.
bt import "$WORK/bad/Rating7.plist" --images "$IMAGES" --update
"$BIN" export >"$WORK/update-after.csv"
check "the same file with --update on the main store: exit 65 and export unchanged" eval '[[ $rc == 65 ]] && cmp -s "$WORK/worn.csv" "$WORK/update-after.csv"'

# --- concurrent wears ----------------------------------------------------------
before=$(times_worn R || echo "?")
pids=()
for worker in 1 2 3 4 5 6 7 8; do
    (
        for _ in $(seq 25); do
            "$BIN" wear R >/dev/null 2>>"$WORK/wear-$worker.err" || exit 1
        done
    ) &
    pids+=($!)
done
workers_ok=0
for pid in "${pids[@]}"; do
    wait "$pid" && workers_ok=$((workers_ok + 1)) || true
done
after=$(times_worn R || echo "?")
check "8 concurrent processes x 25 wear R: all succeed and times worn rises by exactly 200 ($before -> $after)" \
    eval '[[ $workers_ok == 8 && $before != "?" && $after != "?" && $((after - before)) == 200 ]]'

# --- check and check --repair ---------------------------------------------------
bt check
check "check on the main store after all of the above: exit 0, no problems" eval '[[ $rc == 0 ]] && out_has "No problems found."'
if sqlite_only; then
# What a kill during a photo write leaves: a temporary file no tie uses.
leftover="$SUPPORT/.$(ls "$SUPPORT" | head -n 1).tmp-DEADBEEF"
echo "half a photo" >"$leftover"
bt check
check "a leftover temporary photo file: check exits 65 and names it" eval '[[ $rc == 65 ]] && out_has "$leftover" && err_has "1 problem"'
bt check --repair
check "check --repair removes it, says so, and exits 0" eval '[[ $rc == 0 && ! -e $leftover ]] && out_has "repair: remove the file" && out_has "A new check finds no problems."'
fi

# --- reads never write; failures leave no trace (issue 9) --------------------
# Checksums of the store, its -wal (when present) and the photo folder, and
# the names beside the store (-shm, SQLite's shared memory, aside).
# On PostgreSQL: the main database's data as pg_dump writes it, its
# sequences aside (PostgreSQL never takes back a number it handed out, even
# to a transaction that rolled back), and pg_dump's random \restrict key.
store_sums() {
    if ! sqlite_only; then
        pg_dump --data-only "$MAIN" | grep -v -e "pg_catalog.setval" -e '^\\restrict ' -e '^\\unrestrict ' | sha256sum
        return
    fi
    local file
    for file in "$WORK"/catalog.sqlite "$WORK"/catalog.sqlite-wal "$WORK"/.catalog_SUPPORT/_EXTERNAL_DATA/* "$WORK"/.catalog_SUPPORT/_EXTERNAL_DATA/.*; do
        [[ -f $file ]] && sha256sum "$file"
    done
    ls -A "$WORK" | grep '^catalog\.sqlite' | grep -v -- '-shm$' || true
}
store_sums >"$WORK/sums.before"
reads_ok=0
for command in "list" "show R" "export" "export --json" "photo B" "photo B --output $WORK/b.png" "config" "check" "import --dry-run"; do
    # Word splitting of $command is intended.
    # shellcheck disable=SC2086
    bt $command
    [[ $rc == 0 ]] && reads_ok=$((reads_ok + 1))
done
store_sums >"$WORK/sums.after"
check "9 read commands succeed and leave the store$(sqlite_only && echo ", its -wal and the photo folder") byte-identical" \
    eval '[[ $reads_ok == 9 ]] && cmp -s "$WORK/sums.before" "$WORK/sums.after"'
if ! sqlite_only; then
    # A role that may only read: everything that reads works and prints
    # what the owner sees; a write is refused (77) and changes nothing.
    pg_sql "$MAIN" "GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader" >/dev/null
    reader_store=${MAIN/\/\/bowties@/\/\/reader@}
    reader_reads() {
        local command
        for command in list "show B" export "photo B" config; do
            # shellcheck disable=SC2086
            "$BIN" $command --store "$reader_store" </dev/null >"$WORK/ro.out" 2>"$WORK/ro.err" || { sed 's/^/#   /' "$WORK/ro.err"; return 1; }
            # shellcheck disable=SC2086
            "$BIN" $command </dev/null >"$WORK/rw.out" 2>/dev/null
            # config names the role it connects as.
            sed 's|//reader@|//bowties@|' "$WORK/ro.out" | cmp -s - "$WORK/rw.out" || { echo "#   $command differs"; return 1; }
        done
    }
    check "a role with only SELECT: list, show, export, photo, config print what the owner sees" reader_reads
    store_sums >"$WORK/sums.before"
    bt wear R --store "$reader_store"
    check "...and its wear R is refused (exit 77, naming the privilege), the database unchanged" \
        eval '[[ $rc == 77 ]] && err_has "privilege" && store_sums | cmp -s - "$WORK/sums.before"'
elif [[ $(id -u) == 0 ]] && command -v setpriv >/dev/null; then
    # Root ignores permissions: read as nobody, in a folder nobody may not write.
    mkdir -p "$WORK/ro" && cp -a "$WORK/catalog.sqlite" "$WORK/.catalog_SUPPORT" "$WORK/ro/"
    chmod -R a+rX,go-w "$WORK/ro" && chmod 755 "$WORK" && cp "$BIN" "$WORK/ro-bin" && chmod 755 "$WORK/ro-bin"
    as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups env BOWTIES_STORE="$WORK/ro/catalog.sqlite" NO_COLOR=1 "$WORK/ro-bin" "$@" </dev/null; }
    read_only_works() {
        local command
        for command in list "show B" export "photo B" config check; do
            # shellcheck disable=SC2086
            as_nobody $command >"$WORK/ro.out" 2>"$WORK/ro.err" || { sed 's/^/#   /' "$WORK/ro.err"; return 1; }
            # shellcheck disable=SC2086
            BOWTIES_STORE="$WORK/ro/catalog.sqlite" "$BIN" $command >"$WORK/rw.out" 2>/dev/null
            cmp -s "$WORK/ro.out" "$WORK/rw.out" || { echo "#   $command differs"; return 1; }
        done
        [[ ! -e $WORK/ro/catalog.sqlite-wal && ! -e $WORK/ro/catalog.sqlite-shm ]]
    }
    check "a catalog in a folder the user cannot write: list, show, export, photo, config, check work as nobody" read_only_works
else
    ok "read-only catalog as another user # SKIP (not root or no setpriv)"
fi
bt --store "$BOWTIES_STORE" --json show R
check "global options before the command: bowties --store X --json show R" eval '[[ $rc == 0 ]] && out_has "\"searchKey\" : \"R\""'
bt --store '' list
check "--store '' is an error (exit 64), not the default catalog" eval '[[ $rc == 64 ]]'
if sqlite_only; then
rm -f "$WORK/holder.locked"
python3 -c '
import pathlib, sqlite3, sys, time
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("BEGIN IMMEDIATE")
pathlib.Path(sys.argv[2]).touch()
time.sleep(3)
connection.execute("ROLLBACK")
' "$BOWTIES_STORE" "$WORK/holder.locked" &
holder=$!
# Until python3 holds the lock: on a loaded machine its start can take
# longer than any fixed sleep, and the -wal it creates would then
# appear after the checksums below.
for _ in $(seq 100); do [[ -e $WORK/holder.locked ]] && break; sleep 0.1; done
store_sums >"$WORK/sums.before"
bt wear R --wait 1
check "wear --wait 1 while python3 holds the write lock: exit 75, names it by pid" eval '[[ $rc == 75 ]] && err_has "busy" && err_has "pid $holder"'
check "...and the store is byte-identical" eval 'store_sums | cmp -s - "$WORK/sums.before"'
bt wear R
check "wear without --wait waits for the lock, says who it waits for, then succeeds" eval '[[ $rc == 0 ]] && err_has "waiting for the catalog: python3 (pid $holder)"'
wait "$holder" || true
fi

# --- image names, bounded warnings (issue 9) -----------------------------------
mkdir -p "$WORK/names"
python3 - "$SAMPLE" "$WORK/names" <<'EOF'
import plistlib, sys
ties = plistlib.load(open(sys.argv[1], "rb"))
ties[2]["imageName"] = "../Images/yellow.png"
plistlib.dump(ties, open(sys.argv[2] + "/Escape.plist", "wb"))
many = [{"id": "00000000-0000-4000-8000-%012d" % n, "name": "Tie %d" % n, "searchKey": "W%d" % n,
         "imageName": "missing-%d.png" % n} for n in range(30)]
plistlib.dump(many, open(sys.argv[2] + "/Missing.plist", "wb"))
EOF
store_sums >"$WORK/sums.before"
bt import "$WORK/names/Escape.plist" --images "$IMAGES"
check "an image name with .. is refused (exit 65, located, imageName) on a store that already holds the records" \
    eval '[[ $rc == 65 ]] && err_has "Escape.plist:" && err_has "record 3" && err_has "imageName" && store_sums | cmp -s - "$WORK/sums.before"'
export BOWTIES_STORE=$(store_at warnings)
bt import "$WORK/names/Missing.plist"
check "30 records whose photo is missing: 20 warnings one by one, then one counted line" \
    eval '[[ $rc == 0 && $(grep -c "^bowties: warning: " "$WORK/err") == 21 ]] && err_has "10 more records whose photo file is not in"'
export BOWTIES_STORE=$MAIN

# --- a damaged photo ------------------------------------------------------------
# A missing file hides nothing else about its tie; only writing the photo out fails.
if sqlite_only; then
blue_file=$SUPPORT/$(sha256sum <"$IMAGES/blue.png" | cut -c1-64)
rm -f "$blue_file"
bt show B
check "B's photo file removed: show B exits 0 with every field, names the file and warns with the repair hint" eval '[[ $rc == 0 ]] && out_has "Rating: 4.75/5" && out_has "Photo: missing file $blue_file (run" && err_has "bowties: warning: the photo of B" && err_has "bowties check --repair"'
bt photo B --output "$WORK/blue-again.png"
check "...photo B --output exits 74 in the same words and writes no file" eval '[[ $rc == 74 && ! -e $WORK/blue-again.png ]] && err_has "missing file $blue_file"'
bt export
check "...export still has B's row" eval '[[ $rc == 0 ]] && out_has ",Midnight Blue Silk,B,"'
bt check --repair
repair_rc=$rc
bt show B
check "...check --repair sets B's photo to none, and show B no longer warns" eval '[[ $repair_rc == 0 && $rc == 0 && ! -s $WORK/err ]] && grep -qx "Photo: none" "$WORK/out"'
fi

# --- one declared model: wear history, tags, relationships (issue 10) ---------
export BOWTIES_STORE=$(store_at model)
# sql STORE STATEMENTS: runs them with Python's sqlite3 (no shell needed),
# prints the last statement's rows as a|b|c; on PostgreSQL, with psql.
sql() {
    if ! sqlite_only; then
        pg_sql "$@"
        return
    fi
    python3 -c '
import sqlite3, sys
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
rows = []
for statement in sys.argv[2].split(";"):
    if statement.strip():
        rows = connection.execute(statement).fetchall()
for row in rows:
    print("|".join(str(value) for value in row))' "$@"
}
bt import
bt wear O --on 2026-11-20 --note "a wedding"
check "wear O --on 2026-11-20 --note: recorded, 4 times so far" eval '[[ $rc == 0 ]] && out_has "Wore Orange Sherbet (O) on 2026-11-20: 4 times so far."'
bt wear O --on 2099-01-01
check "wear --on a date in the future: exit 64, nothing recorded" eval '[[ $rc == 64 ]] && err_has "2099-01-01"'
bt history O
check "history O: the wear with its note, and 3 from before the history" eval '[[ $rc == 0 ]] && out_has "2026-11-20  a wedding" && out_has "4 times worn: 1 recorded, 3 before the history began."'
bt unwear O
last_worn_o=$("$BIN" show O --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["lastWorn"])')
check "unwear O: back to 3 times, last worn as imported ($last_worn_o)" eval '[[ $rc == 0 ]] && out_has "3 times so far." && [[ $last_worn_o == 2014-05-03T09:41:07Z ]]'
bt unwear O
check "unwear O again: exit 1, no recorded wear" eval '[[ $rc == 1 ]] && err_has "no recorded wear"'
bt tag R formal Wedding
bt tag B FORMAL
bt tags --json
check "tag R and B: tags lists formal (2) and Wedding (1), matched ignoring case" eval '[[ $rc == 0 ]] && python3 -c "
import json, sys
tags = json.load(open(sys.argv[1]))
sys.exit(0 if tags == [{\"name\": \"formal\", \"count\": 2}, {\"name\": \"Wedding\", \"count\": 1}] else 1)" "$WORK/out"'
bt tag R "a,b"
check "a tag name with a comma: exit 65, Core Data's 1680" eval '[[ $rc == 65 ]] && err_has "1680"'
bt list --tag Formal --json
check "list --tag Formal: R and B" eval '[[ $rc == 0 ]] && python3 -c "
import json, sys
sys.exit(0 if [t[\"searchKey\"] for t in json.load(open(sys.argv[1]))] == [\"R\", \"B\"] else 1)" "$WORK/out"'
bt wear R --on 2026-11-21
bt delete R
rows=$(sql "$BOWTIES_STORE" "SELECT (SELECT count(*) FROM wear), (SELECT count(*) FROM bowtie_tag), (SELECT count(*) FROM tag)")
check "delete R: its wears go (cascade), its tag links go, the tags stay (nullify): $rows" eval '[[ $rows == "0|1|2" ]]'
bt tags --delete formal
check "tags --delete formal: B keeps its other fields and loses the tag" eval '[[ $rc == 0 ]] && out_has "it was on 1 bow tie" && [[ $(sql "$BOWTIES_STORE" "SELECT count(*) FROM bowtie_tag") == 0 ]]'
bt model --json
check "model --json: BowTie.wears cascades to Wear, BowTie.tags nullifies" eval '[[ $rc == 0 ]] && python3 -c "
import json, sys
entities = {e[\"name\"]: e for e in json.load(open(sys.argv[1]))[\"entities\"]}
rel = {r[\"name\"]: r for r in entities[\"BowTie\"][\"relationships\"]}
ok = rel[\"wears\"][\"destination\"] == \"Wear\" and rel[\"wears\"][\"deleteRule\"] == \"cascade\" and rel[\"tags\"][\"deleteRule\"] == \"nullify\" and set(entities) == {\"BowTie\", \"Wear\", \"Tag\"}
sys.exit(0 if ok else 1)" "$WORK/out"'
if sqlite_only; then
    sql "$BOWTIES_STORE" "PRAGMA foreign_keys=OFF; INSERT INTO wear (date, bowTie_id) VALUES (0, 'NO-SUCH-TIE')"
else
    # Without its foreign-key triggers, as a restore with them off would.
    sql "$BOWTIES_STORE" "SET session_replication_role = replica; INSERT INTO wear (date, \"bowTie_id\") VALUES (0, 'NO-SUCH-TIE')" >/dev/null
fi
bt check
check "a wear of a tie that does not exist: check exits 65 and names the wear table" eval '[[ $rc == 65 ]] && out_has "of wear refers to a row of bowtie"'
bt check --repair
check "check --repair deletes it as the delete rule would have" eval '[[ $rc == 0 ]] && out_has "A new check finds no problems."'
export BOWTIES_STORE=$MAIN

# --- report: one self-contained HTML page (issue 13) ---------------------------
export BOWTIES_STORE=$(store_at report)
bt import
hostile="<script>document.body.setAttribute('data-pwned','1')</script><img src=x onerror=\"document.title='pwned'\">"
bt add --name "$hostile" --key X
bt report --output "$WORK/report.html"
check "report --output: exit 0, 8 ties, 7 photos embedded" eval '[[ $rc == 0 ]] && out_has "8 bow ties, 8 cards, 7 photos embedded"'
report_is_self_contained() {
    python3 - "$WORK/report.html" <<'EOF'
import html.parser, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
problems = []
class Links(html.parser.HTMLParser):
    scripts = 0
    def handle_starttag(self, tag, attrs):
        if tag == "script":
            Links.scripts += 1
        for name, value in attrs:
            if name in ("src", "href", "srcset", "action", "poster", "data") and not (value or "").startswith("data:"):
                problems.append(f"<{tag} {name}={value!r}>")
Links().feed(page)
if Links.scripts != 2:
    problems.append(f"{Links.scripts} script elements, expected the page's own 2")
if re.search(r"url\(\s*(?![\"']?data:)|@import|https?://", page):
    problems.append("an address outside the page")
if "Content-Security-Policy" not in page or "default-src 'none'" not in page:
    problems.append("no Content-Security-Policy")
if "data:image/png;base64," not in page:
    problems.append("no photo as a data: URI")
if "&lt;script&gt;document.body" not in page:
    problems.append("the hostile name is not escaped text")
for problem in problems:
    print("#   " + problem)
sys.exit(1 if problems else 0)
EOF
}
check "the report loads nothing from elsewhere, has a CSP, embeds photos as data: URIs, escapes names" report_is_self_contained
chromium_bin=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [[ -n $chromium_bin ]]; then
    "$chromium_bin" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$WORK/chromium" \
        --virtual-time-budget=2000 --dump-dom "file://$WORK/report.html" >"$WORK/dom.html" 2>/dev/null || true
    check "headless Chromium: the table's script runs (8 rows) and the hostile name runs nothing" \
        eval 'grep -qF "Showing 1–8 of 8" "$WORK/dom.html" && grep -qF "<body>" "$WORK/dom.html" && ! grep -qF "<title>pwned" "$WORK/dom.html"'
else
    ok "report in headless Chromium # SKIP (chromium is not installed)"
fi
# A 3000x2000 PNG (made by Python's zlib) is scaled down to 480x320, once.
python3 - "$WORK/large.png" <<'EOF'
import struct, sys, zlib
width, height = 3000, 2000
grain = lambda x, y: (x * 7919 ^ y * 104729) & 31  # as a photo has: a JPEG beats a PNG
row = lambda y: b"\0" + bytes(v for x in range(width) for g in (grain(x, y),) for v in (x * 223 // width + g, y * 223 // height + g, 96 + g))
def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    + chunk(b"IDAT", zlib.compress(b"".join(row(y) for y in range(height)), 6)) + chunk(b"IEND", b""))
EOF
bt add --name "Large photo" --key LP --photo "$WORK/large.png"
bt report --output "$WORK/report-large.html" LP
check "report: a 3000x2000 photo is scaled down" eval '[[ $rc == 0 ]] && out_has "1 photo embedded" && out_has "1 scaled down)"'
jpeg_is_480x320() {
    python3 - "$WORK/report-large.html" <<'EOF'
import base64, re, struct, sys
page = open(sys.argv[1], encoding="utf-8").read()
found = re.findall(r'url\("data:image/jpeg;base64,([^"]+)"\)', page)
if len(found) != 1:
    print(f"#   {len(found)} JPEG photos, expected 1")
    sys.exit(1)
data, i = base64.b64decode(found[0]), 2
while data[i] == 0xFF and data[i + 1] not in (0xC0, 0xC1, 0xC2):
    i += 2 + struct.unpack(">H", data[i + 2:i + 4])[0]
height, width = struct.unpack(">HH", data[i + 5:i + 9])
sys.exit(0 if (width, height) == (480, 320) else 1)
EOF
}
check "report: the scaled photo is a 480x320 JPEG" jpeg_is_480x320

# --- keys are keys; query edges (issue 20, items 1, 10, 11) --------------------
export BOWTIES_STORE=$(store_at keys)
bt import
bt wear R B --dry-run
check "wear R B --dry-run: selects R and B" eval '[[ $rc == 0 ]] && out_has "Classic Red Bow Tie (R)" && out_has "Midnight Blue Silk (B)" && ! out_has "Orange Sherbet"'
bt delete G Y
check "delete G Y: deletes G and Y" eval '[[ $rc == 0 ]] && out_has "Deleted 2 bow ties." && [[ $("$BIN" count) == 5 ]]'
bt add --name "Query Tie" --key rating:4
check "add --key rating:4: refused, 1680" eval '[[ $rc == 65 ]] && err_has "searchKey contains \":\"" && err_has "1680"'
bt delete silk
check "delete silk (a query, one tie): refused without --yes, nothing deleted" eval '[[ $rc == 64 ]] && err_has "--yes" && [[ $("$BIN" count) == 5 ]]'
bt list --tag nosuch
check "list --tag nosuch: exit 1, as list tag:nosuch" eval '[[ $rc == 1 ]] && out_has "No bow tie is tagged"'
bt list rating:5..3
check "list rating:5..3: the range is empty, exit 64" eval '[[ $rc == 64 ]] && err_has "term 1 (rating:5..3): the range 5..3 is empty"'
bt list has:colour
check "has:colour suggests tintColor" eval '[[ $rc == 64 ]] && err_has "did you mean \"tintColor\"?"'
bt list --json tintColor:#c81e2d
check "tintColor:#c81e2d finds R" eval '[[ $rc == 0 ]] && out_has "\"searchKey\":\"R\""'
# --- issue 20: check --repair undo, edit, non-images, write failures, favourite --
export BOWTIES_STORE=$(store_at i20)
mkdir -p "$WORK/i20"
bt import
if sqlite_only; then
python3 - "$BOWTIES_STORE" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE blob SET data = zeroblob(length(data)) WHERE sha256 = (SELECT photoData_sha256 FROM bowtie WHERE searchKey = 'R')")
db.commit()
EOF
else
    pg_sql "$BOWTIES_STORE" "UPDATE blob SET data = decode(repeat('00', length(data)), 'hex') WHERE sha256 = (SELECT \"photoData_sha256\" FROM bowtie WHERE \"searchKey\" = 'R')" >/dev/null
fi
bt check --repair
check "check --repair of a damaged photo says undo takes it back" eval '[[ $rc == 0 ]] && out_has "Undo: \`bowties undo\` takes back #2 \"Repair the catalog\""'
bt undo
check "undo after check --repair puts the photo back (was: FOREIGN KEY constraint failed, 74)" eval '[[ $rc == 0 ]] && out_has "Undid \"Repair the catalog\""'
printf '#!/bin/sh\necho "colour: red" >> "$1"\n' >"$WORK/i20/append.sh"
chmod +x "$WORK/i20/append.sh"
edit_refused() { rc=0; TMPDIR="$WORK/i20" VISUAL='' EDITOR="$WORK/i20/append.sh" timeout 20 "$BIN" edit O </dev/null >"$WORK/out" 2>"$WORK/err" || rc=$?; }
edit_refused
check "edit with an editor that returns a refused text, no terminal: exit 65, the text kept (was: a loop)" eval '[[ $rc == 65 ]] && err_has "your edited text is saved in"'
printf 'hello world\n' >"$WORK/i20/notes.txt"
bt photo O --set "$WORK/i20/notes.txt"
check "photo --set of a text file is refused, exit 65" eval '[[ $rc == 65 ]] && err_has "is not an image"'
bt export --output "$WORK/i20"
check "export --output DIR: exit 73, it is a folder" eval '[[ $rc == 73 ]] && err_has "it is a folder"'
bt favorite B
check "favorite on a favourite says it already is" eval '[[ $rc == 0 ]] && out_has "is already a favourite."'
bt favourite O
check "favourite is the same command as favorite" eval '[[ $rc == 0 ]] && out_has "Orange Sherbet (O) is now a favourite."'
bt add --name "Plain" --key P
bt show P
check "show prints every field: Colour and URL none" eval '[[ $rc == 0 ]] && out_has "Colour: none" && out_has "URL: none"'
bt add --name "   " --key S
check "a name of only spaces is refused (1680)" eval '[[ $rc == 65 ]] && err_has "name must contain a character other than a space."'
export BOWTIES_STORE=$MAIN

# --- bowties serve ----------------------------------------------------------
# The server on a free port: one start-up line, a wear through the API that
# the CLI counts, a foreign Host refused, SIGTERM stops it.
serve_checks() {
    local store log=$WORK/serve.out pid port worn before
    if sqlite_only; then store=$WORK/serve.sqlite; else store=$(store_at serve); fi
    "$BIN" import "$SAMPLE" --store "$store" >/dev/null 2>&1 || return 1
    "$BIN" serve --port 0 --store "$store" >"$log" 2>"$WORK/serve.err" &
    pid=$!
    for _ in $(seq 1 100); do grep -q "serving" "$log" && break; sleep 0.1; done
    port=$(sed -n 's|.*http://127.0.0.1:\([0-9]*\)/$|\1|p' "$log")
    [[ -n $port ]] || { kill "$pid"; return 1; }
    before=$("$BIN" show R --json --store "$store" | python3 -c 'import json,sys; print(json.load(sys.stdin)["timesWorn"])')
    curl -sf -X POST -H 'Content-Type: application/json' -d '{}' "http://127.0.0.1:$port/api/ties/R/wear" >/dev/null || { kill "$pid"; return 1; }
    worn=$("$BIN" show R --json --store "$store" | python3 -c 'import json,sys; print(json.load(sys.stdin)["timesWorn"])')
    local host_status
    host_status=$(curl -s -o /dev/null -w '%{http_code}' -H "Host: evil.example:$port" "http://127.0.0.1:$port/api/ties")
    kill -TERM "$pid"
    wait "$pid" || return 1
    [[ $worn == $((before + 1)) && $host_status == 403 ]]
}
if command -v curl >/dev/null; then
    check "serve: a wear through the API counts, a foreign Host is refused, SIGTERM stops it (exit 0)" serve_checks
else
    ok "serve # SKIP (no curl)"
fi

# --- memory: a PostgreSQL import's peak (issue 24, point 6) ---------------------
# The release binary as scripts/install builds it (the Swift runtime linked
# in), with its link order and batches of 512: peak RSS 27.6 to 28.3 MiB at
# 100,000 and 1,000,000 ties, 35.6 to 36.2 MiB without the link order and
# with batches of 2,048 (bench/results/postgres.md, "Session 13"); the
# issue's bar is 40 MB (38.1 MiB). The debug build links the runtime and
# Foundation as shared libraries: not measured.
if sqlite_only; then
    : # The bar is the PostgreSQL import's.
elif ldd "$BIN" 2>/dev/null | grep -q libswiftCore; then
    ok "a PostgreSQL import's peak memory # SKIP (not a release build with the Swift runtime linked in)"
else
    import_memory() {
        local store file peak
        store=$(store_at memory)
        file=$WORK/memory.plist
        python3 "$ROOT/bench/gen.py" 20000 "$file" >/dev/null || return 1
        # wait4's ru_maxrss, in KiB, of the import alone.
        peak=$(python3 - "$BIN" "$file" "$IMAGES" "$store" <<'PYTHON'
import os, sys
binary, file, images, store = sys.argv[1:]
pid = os.posix_spawn(binary, [binary, "import", file, "--images", images, "--store", store], dict(os.environ),
                     file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)])
_, status, usage = os.wait4(pid, 0)
print(usage.ru_maxrss if os.waitstatus_to_exitcode(status) == 0 else -1)
PYTHON
        ) || return 1
        echo "# peak RSS of the import of 20,000 ties: $peak KiB"
        ((peak > 0 && peak <= 32 * 1024))
    }
    check "a PostgreSQL import of 20,000 ties peaks under 32 MiB" import_memory
fi

# --- the README's set-up line --------------------------------------------------
if ! sqlite_only; then
    : # The README's line makes a SQLite catalog: the SQLite pass runs it.
elif [[ ${SKIP_SWIFT_RUN:-0} == 1 ]]; then
    ok "README set-up line # SKIP (SKIP_SWIFT_RUN=1)"
else
    readme_setup() {
        # Word splitting of SWIFT_RUN_FLAGS is intended.
        # shellcheck disable=SC2086
        BOWTIES_STORE=$WORK/readme/catalog.sqlite \
            bash -c "swift run ${SWIFT_RUN_FLAGS:-} bowties import && swift run ${SWIFT_RUN_FLAGS:-} bowties list" \
            </dev/null >"$WORK/readme.out" 2>"$WORK/readme.err" || { tail -n 20 "$WORK/readme.err" | sed 's/^/#   /'; return 1; }
        grep -q "added 7, updated 0, unchanged 0" "$WORK/readme.out" && grep -q "^7 bow ties, 1 favourite$" "$WORK/readme.out"
    }
    check "README: swift run bowties import && swift run bowties list shows 7 ties" readme_setup
fi

echo "$passed passed, $failed failed"
[[ $failed == 0 ]]
