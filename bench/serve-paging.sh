#!/usr/bin/env bash
# `bowties serve`'s paging on a big catalog: the first page against the
# last (`before=end`), a page deep in the order by keyset (`before=` the
# last page's `previous`), and the same deep page by `offset=`, for each
# order the page offers. Requests alternate (first, last, deep, offset,
# first…) so that the machine's load falls on all alike; each figure is
# the median and the 90th percentile of ROUNDS requests (curl's
# time_total, on loopback). Prints Markdown (bench/results/serve.md).
#
#   python3 bench/gen.py 1000000 /tmp/1m.jsonl --jsonl --no-images
#   .build/release/bowties import /tmp/1m.jsonl --store /tmp/1m.sqlite
#   bash bench/serve-paging.sh /tmp/1m.sqlite            # .build/release
#   BIN=.build/debug ROUNDS=5 bash bench/serve-paging.sh /tmp/1m.sqlite
#   OFFSETS=0 SORTS="rating lastWorn" bash bench/serve-paging.sh /tmp/1m.sqlite
#
# OFFSETS=0 leaves out the offset= column: on an order without an index
# (name, rating, lastWorn) one such request sorts every tie whole, tags
# included, and takes a minute on a loaded machine.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.build/release}
ROUNDS=${ROUNDS:-15}
OFFSETS=${OFFSETS:-1}
SORTS=${SORTS:-added key name rating lastWorn}
store=${1:?usage: bench/serve-paging.sh CATALOG}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bowties-paging-bench.XXXXXX")
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$WORK"' EXIT
"$BIN/bowties" serve --read-only --port 0 --store "$store" >"$WORK/serve.out" 2>&1 &
pid=$!
for _ in $(seq 1 100); do grep -q serving "$WORK/serve.out" && break; sleep 0.1; done
port=$(sed -n 's|.*http://127.0.0.1:\([0-9]*\)/$|\1|p' "$WORK/serve.out")
url=http://127.0.0.1:$port/api/ties
field() { python3 -c "import json,sys; v=json.load(sys.stdin)[\"$1\"]; print('' if v is None else v)"; }
seconds() { curl -s -o /dev/null -w '%{time_total}\n' "$1"; }

echo "## Paging $(python3 -c "print(f'{$("$BIN/bowties" count --store "$store"):,}')") ties"
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) at the start, binaries: $BIN, $ROUNDS rounds, limit=50, milliseconds (median / 90th percentile)."
echo
echo "| sort | first page | last page (\`before=end\`) | the page before the last (\`before=\`) | that page by \`offset=\` |"
echo "|---|---|---|---|---|"
for sort in $SORTS; do
    base="$url?sort=$sort&limit=50"
    total=$(curl -s "$base" | field total)
    previous=$(curl -s "$base&before=end" | field previous)
    deep="$base&before=$previous"
    offset="$base&offset=$((total - 100))"
    : >"$WORK/first"; : >"$WORK/last"; : >"$WORK/deep"; : >"$WORK/offset"
    for _ in $(seq 1 "$ROUNDS"); do
        seconds "$base" >>"$WORK/first"
        seconds "$base&before=end" >>"$WORK/last"
        seconds "$deep" >>"$WORK/deep"
        if [ "$OFFSETS" = 1 ]; then seconds "$offset" >>"$WORK/offset"; fi
    done
    python3 - "$sort" "$WORK" <<'EOF'
import statistics, sys
sort, work = sys.argv[1:3]
cells = []
for name in ["first", "last", "deep", "offset"]:
    values = sorted(float(line) * 1000 for line in open(f"{work}/{name}"))
    if not values:
        cells.append("not run")
        continue
    p90 = values[min(len(values) - 1, int(len(values) * 0.9))]
    cells.append(f"{statistics.median(values):.0f} / {p90:.0f}")
print(f"| {sort} | " + " | ".join(cells) + " |")
EOF
done
echo
echo "Load at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
