#!/usr/bin/env python3
"""The figures of a soak from bench/mallinfo_log.c's log.

    python3 bench/mallinfo_summary.py LOG [--from SECONDS] [--seconds SOAK]

For every column: the mean of the first minute, of the second, of the
last, the change from the first minute to the last, and the least-squares
slope over the second half (per minute). --from is the second of the
server's life at which the soak began (bench/serve.sh prints it) and
--seconds the soak's length: samples outside that window are left out.
Memory is flat when the last minute is within 2 % of the first and the
second half's slope is near zero.
"""

import argparse
import statistics


def slope_per_minute(points):
    """Least squares of (seconds, value), in value per minute."""
    if len(points) < 2:
        return float("nan")
    xs = [x for x, _ in points]
    ys = [y for _, y in points]
    mean_x, mean_y = statistics.mean(xs), statistics.mean(ys)
    denominator = sum((x - mean_x) ** 2 for x in xs)
    if denominator == 0:
        return float("nan")
    return 60 * sum((x - mean_x) * (y - mean_y) for x, y in points) / denominator


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log")
    parser.add_argument("--from", dest="start", type=int, default=0)
    parser.add_argument("--seconds", type=int)
    arguments = parser.parse_args()

    with open(arguments.log) as file:
        columns = file.readline().split()
        rows = [list(map(int, line.split())) for line in file if line.strip()]
    end = arguments.start + arguments.seconds if arguments.seconds else float("inf")
    rows = [row for row in rows if arguments.start <= row[0] < end]
    if not rows:
        raise SystemExit("mallinfo_summary: no samples in that window")
    first_t = rows[0][0]
    last_t = rows[-1][0]
    half = first_t + (last_t - first_t) / 2

    def window(low, high):
        return [row for row in rows if low <= row[0] < high]

    first = window(first_t, first_t + 60)
    second = window(first_t + 60, first_t + 120)
    last = window(last_t - 50, last_t + 1)
    print(f"{len(rows)} samples, seconds {first_t} to {last_t} of the server's life")
    print()
    print("| column | first minute | second minute | last minute | change | slope, second half (/min) |")
    print("|---|---|---|---|---|---|")
    for index, name in enumerate(columns[1:], start=1):
        def mean(sample):
            return statistics.mean(row[index] for row in sample) if sample else float("nan")

        a, b, z = mean(first), mean(second), mean(last)
        change = 100 * (z - a) / a if a else float("nan")
        slope = slope_per_minute([(row[0], row[index]) for row in rows if row[0] >= half])
        if name in ("in_use", "free", "arena", "mmapped"):
            # bytes, shown in kB as /proc's columns are
            a, b, z, slope = a / 1024, b / 1024, z / 1024, slope / 1024
        print(f"| {name} | {a:,.0f} | {b:,.0f} | {z:,.0f} | {change:+.1f} % | {slope:+,.0f} |")


if __name__ == "__main__":
    main()
