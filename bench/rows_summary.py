"""Ratios of the rows benches (bench/produce_rows.sh, bench/consume_rows.sh) to Kafka.

    python3 bench/rows_summary.py RESULTS.jsonl

Reads their JSON lines; for each row and each ketch NAME, takes per round the median of the
row's samples (several passes in a round), divides it by Kafka's in the same round, and prints
one JSON line per (row, figure, NAME): the median of those per-round ratios, their least and
greatest, each round's ratio, and the median CPU steal of the row's steps. Figures: mib_s
and to_last_mib_s (above 1 is ahead), cpu_ms_per_mib, client_cpu_s, client_minflt, client_csw and, for latency rows, p50_ms / p99_ms /
p999_ms (below 1 is ahead).
"""

import json
import statistics
import sys
from collections import defaultdict

FIGURES = ("mib_s", "to_last_mib_s", "cpu_ms_per_mib", "client_cpu_s", "client_minflt", "client_csw", "p50_ms", "p99_ms", "p999_ms")


def summarize(lines):
    """The summary lines for the measurement lines `lines` (dicts)."""
    samples = defaultdict(list)  # (row, figure, broker, round) -> values
    steal = defaultdict(list)  # row -> steal_pct of each step
    for m in lines:
        if "row" not in m or "broker" not in m:
            continue
        steal[m["row"]].append(m.get("steal_pct", 0))
        for f in FIGURES:
            if f in m and (f != "mib_s" or not m["row"].startswith("latency")):
                samples[(m["row"], f, m["broker"], m["round"])].append(m[f])
    ratios = defaultdict(list)  # (row, figure, name) -> [(round, ratio)]
    for (row, f, broker, rnd), v in samples.items():
        kafka = samples.get((row, f, "kafka", rnd))
        if broker == "kafka" or not kafka or statistics.median(kafka) == 0:
            continue
        ratios[(row, f, broker)].append((rnd, statistics.median(v) / statistics.median(kafka)))
    out = []
    for (row, f, name), rs in sorted(ratios.items()):
        rs.sort()
        vals = [r for _, r in rs]
        out.append({"summary": row, "figure": f, "name": name, "vs": "kafka",
                    "median_ratio": round(statistics.median(vals), 3), "min": round(min(vals), 3),
                    "max": round(max(vals), 3), "per_round": [round(r, 3) for r in vals],
                    "steal_pct_median": round(statistics.median(steal[row]), 2)})
    return out


def main():
    with open(sys.argv[1]) as f:
        lines = [json.loads(x) for x in f if x.strip()]
    for s in summarize(lines):
        print(json.dumps(s))


if __name__ == "__main__":
    main()
