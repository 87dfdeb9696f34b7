#!/usr/bin/env bash
# `bowties serve` under load: wrk against the page and the API on loopback,
# bounded in time, then 8 concurrent wear clients plus CLI wears on one tie,
# checked to count exactly. Prints Markdown (bench/results/serve.md).
#
#   bash bench/serve.sh                       # .build/release binaries
#   BIN=.build/debug bash bench/serve.sh      # another build folder
#   DURATION=10s bash bench/serve.sh
#   SOAK=600 bash bench/serve.sh              # then 10 minutes under load
#   SERVE_PREFIX="heaptrack -o /tmp/serve" SOAK=120 bash bench/serve.sh
#                                             # the server run by a profiler
#   SERVE_PREFIX="env LD_PRELOAD=/tmp/mallinfo_log.so MALLINFO_LOG=/tmp/m.log" SOAK=600 bash bench/serve.sh
#                                             # glibc's arenas logged (bench/mallinfo_log.c)
#   WEARS=kept-alive SOAK=300 bash bench/serve.sh
#                                             # each wear client keeps its connection
#
# With SOAK=SECONDS, a last section keeps the server under load that long
# (wrk on the page and on /api/ties, 8 API clients and the CLI wearing R
# in a loop) and samples its resident memory every 10 s: memory is flat
# when the last minute's mean is the first minute's. The API clients
# connect for every wear (`curl` each time, 0.2 s apart); with
# WEARS=kept-alive each makes 25 wears on one connection (`curl --rate
# 5/s`), the same pace without a process start between wears: about
# twice the wears, and the load that grew the server's memory fastest
# (bench/results/serve.md, session 13).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.build/release}
DURATION=${DURATION:-10s}
command -v wrk >/dev/null || { echo "bench/serve.sh: needs wrk (apt-get install wrk)" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bowties-serve-bench.XXXXXX")
trap 'kill ${server:-} "$pid" 2>/dev/null || true; rm -rf "$WORK"' EXIT
store=$WORK/catalog.sqlite
"$BIN/bowties" import SampleData/SampleData.plist --store "$store" >/dev/null
# SERVE_PREFIX runs the server's own executable under a command (a heap
# profiler; `env NAME=VALUE` for the server alone); RSS is then the
# profiler's process's, so compare such runs with each other only.
if [ -n "${SERVE_PREFIX:-}" ]; then
    $SERVE_PREFIX "$BIN/bowties-serve" --port 0 --store "$store" >"$WORK/serve.out" 2>&1 &
else
    "$BIN/bowties" serve --port 0 --store "$store" >"$WORK/serve.out" 2>&1 &
fi
pid=$!
# Up to 2 minutes: a profiler's start on a loaded machine is slow.
for _ in $(seq 1 1200); do grep -q serving "$WORK/serve.out" && break; sleep 0.1; done
port=$(sed -n 's|.*http://127.0.0.1:\([0-9]*\)/$|\1|p' "$WORK/serve.out")
[ -n "$port" ] || { echo "bench/serve.sh: the server did not start:" >&2; cat "$WORK/serve.out" >&2; exit 1; }
url=http://127.0.0.1:$port
# The server's own process: a profiler that runs it as its child
# (heaptrack) is not the one to measure.
server=$(pgrep -P "$pid" -x bowties-serve || echo "$pid")
rss() { awk '/VmRSS/ {print $2 " kB"}' "/proc/$server/status"; }

echo "# bowties serve under load"
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), binaries: $BIN, wrk -t2 -c16 -d$DURATION --latency."
echo "Server memory before: $(rss)."
for path in / /api/ties "/api/ties?q=rating:3..&sort=name" /api/ties/R; do
    echo
    echo "## GET $path"
    echo
    echo '```'
    wrk -t2 -c16 -d"$DURATION" --latency "$url$path" | sed -n '/Thread Stats/,$p'
    echo '```'
done
echo
echo "Server memory after the reads: $(rss)."

# 8 clients wearing R 25 times each through the API, and the CLI 25 times.
before=$("$BIN/bowties" show R --json --store "$store" | python3 -c 'import json,sys; print(json.load(sys.stdin)["timesWorn"])')
start=$(date +%s.%N)
for client in $(seq 1 8); do
    (for _ in $(seq 1 25); do
        curl -sf -X POST -H 'Content-Type: application/json' -d '{}' "$url/api/ties/R/wear" >/dev/null || echo "client $client: a wear failed" >&2
    done) &
done
(for _ in $(seq 1 25); do "$BIN/bowties" wear R --store "$store" >/dev/null; done) &
wait $(jobs -p | grep -v "^$pid$") 2>/dev/null || true
end=$(date +%s.%N)
after=$("$BIN/bowties" show R --json --store "$store" | python3 -c 'import json,sys; print(json.load(sys.stdin)["timesWorn"])')
echo
echo "## Concurrent wears"
echo
echo "8 API clients × 25 wears + 25 CLI wears of R: timesWorn $before → $after ($((after - before)) counted of 225) in $(python3 -c "print(f'{$end - $start:.1f}')") s."
echo "Server memory at the end: $(rss)."

[ -n "${SOAK:-}" ] || exit 0
# Memory over SOAK seconds under load.
: >"$WORK/rss"
end_at=$(( $(date +%s) + SOAK ))
wrk -t1 -c4 -d"${SOAK}s" "$url/" >"$WORK/wrk-page" 2>&1 &
wrk -t1 -c4 -d"${SOAK}s" "$url/api/ties?sort=name" >"$WORK/wrk-api" 2>&1 &
before=$("$BIN/bowties" show R --json --store "$store" | python3 -c 'import json,sys; print(json.load(sys.stdin)["timesWorn"])')
: >"$WORK/wears"
# Where the soak begins in the server's life (bench/mallinfo_summary.py --from).
soak_from=$(ps -o etimes= -p "$server" | tr -d ' ')
for client in $(seq 1 8); do
    if [ "${WEARS:-}" = kept-alive ]; then
        (while [ "$(date +%s)" -lt "$end_at" ]; do
            # One line a wear: its HTTP status (000 when it failed to connect).
            curl -s --rate 5/s -X POST -H 'Content-Type: application/json' -d '{}' -w '%{http_code}\n' \
                $(for _ in $(seq 1 25); do printf -- '-o /dev/null %s ' "$url/api/ties/R/wear"; done) |
                awk '$1 == 200 {print "api"}' >>"$WORK/wears"
        done) &
    else
        (while [ "$(date +%s)" -lt "$end_at" ]; do
            curl -sf -X POST -H 'Content-Type: application/json' -d '{}' "$url/api/ties/R/wear" >/dev/null && echo api >>"$WORK/wears"
            sleep 0.2
        done) &
    fi
done
(while [ "$(date +%s)" -lt "$end_at" ]; do
    "$BIN/bowties" wear R --store "$store" >/dev/null && echo cli >>"$WORK/wears"
    sleep 0.2
done) &
elapsed=0
while [ "$(date +%s)" -lt "$end_at" ]; do
    echo "$elapsed $(awk '/VmRSS/ {print $2}' "/proc/$server/status") $(cut -d' ' -f1 /proc/loadavg)" >>"$WORK/rss"
    sleep 10
    elapsed=$((elapsed + 10))
done
wait $(jobs -p | grep -v "^$pid$") 2>/dev/null || true
after=$("$BIN/bowties" show R --json --store "$store" | python3 -c 'import json,sys; print(json.load(sys.stdin)["timesWorn"])')
echo
echo "## $((SOAK / 60)) minutes under load"
echo
if [ "${WEARS:-}" = kept-alive ]; then clients="8 API clients (25 wears a connection, 5 a second)"; else clients="8 API clients"; fi
echo "wrk -t1 -c4 on / and on /api/ties?sort=name, $clients and the CLI wearing R (0.2 s apart each) for $SOAK s, from the server's second $soak_from; the server's VmRSS every 10 s."
echo
echo "- GET /: $(grep -E 'Requests/sec|requests in' "$WORK/wrk-page" | tr -s ' ' | tr '\n' ' ')"
echo "- GET /api/ties?sort=name: $(grep -E 'Requests/sec|requests in' "$WORK/wrk-api" | tr -s ' ' | tr '\n' ' ')"
echo "- Wears: $(grep -c api "$WORK/wears") through the API and $(grep -c cli "$WORK/wears") by the CLI succeeded; R's timesWorn $before → $after ($((after - before)) counted)."
echo
python3 - "$WORK/rss" <<'EOF'
import statistics, sys
samples = [(int(t), int(kb), load) for t, kb, load in (line.split() for line in open(sys.argv[1]) if line.strip())]
first = [kb for t, kb, _ in samples if t < 60]
last = [kb for t, kb, _ in samples if t >= samples[-1][0] - 50]
print("| seconds | VmRSS (kB) | load |")
print("|---|---|---|")
for t, kb, load in samples:
    print(f"| {t} | {kb} | {load} |")
print()
print(f"First minute: mean {statistics.mean(first):,.0f} kB (min {min(first):,}, max {max(first):,}); "
      f"last minute: mean {statistics.mean(last):,.0f} kB (min {min(last):,}, max {max(last):,}); "
      f"change {100 * (statistics.mean(last) - statistics.mean(first)) / statistics.mean(first):+.1f} %.")
EOF
