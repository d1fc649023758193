#!/usr/bin/env python3
"""Turns bench/run.sh measurements into the table and the results JSON.

    report.py MEASUREMENTS.jsonl OUT.json --meta key=value ...

Each input line is {"key", "broker", "value", "unit"}; brokers are ketch, kafka (defaults),
kafka_fsync (Kafka with flush.messages=1 on the topic), kafka_flush1s (Kafka with flush.ms=1000 on
the topic, as ketch's --flush-ms) and machine (limits). Every figure is
the median of its repeats (a machine limit: the best of its measurements); ratios are computed from medians of the same run.
"""
import argparse
import json
import statistics
import sys
from collections import defaultdict

# key, label, better ("hi"/"lo"), Kafka variant compared with, machine limit key, goal
#   goal: (kind, number) with kind "ratio_limit" (ketch / limit >= number) or "max" (ketch <= number)
ROWS = [
    ("startup_ms", "Start-up to first ApiVersions (ms)", "lo", "kafka", None, ("max", 20)),
    ("idle_rss_mib", "Idle RSS after start-up (MiB)", "lo", "kafka", None, ("max", 20)),
    ("produce_1p_mib_s", "Produce acks=1, 1 producer (MiB/s)", "hi", "kafka", "loopback_mib_s", ("ratio_limit", 0.5)),
    ("produce_4p_mib_s", "Produce acks=1, 4 producers (MiB/s)", "hi", "kafka", "loopback_mib_s", ("ratio_limit", 0.5)),
    ("consume_perf_mib_s", "Consume, ConsumerPerformance (MiB/s)", "hi", "kafka", "loopback_mib_s", ("ratio_limit", 0.7)),
    ("consume_direct_mib_s", "Consume, franz-go no group (MiB/s)", "hi", "kafka", "loopback_mib_s", ("ratio_limit", 0.7)),
    ("raw_produce_mib_s", "Produce acks=1, raw wire client (MiB/s)", "hi", "kafka", "loopback_mib_s", ("ratio_limit", 0.5)),
    ("raw_produce_mib_s", "Produce acks=1, raw wire vs receive+store (MiB/s)", "hi", "kafka", "store_mib_s", None),
    ("raw_produce_mib_s", "Produce acks=1, raw wire vs store as a broker (MiB/s)", "hi", "kafka", "store_broker_mib_s", None),
    ("raw_fetch_mib_s", "Consume, raw wire client (MiB/s)", "hi", "kafka", "loopback_mib_s", ("ratio_limit", 0.7)),
    ("raw_fetch_mib_s", "Consume, raw wire vs sendfile loopback (MiB/s)", "hi", "kafka", "sendfile_mib_s", None),
    ("raw_produce_mib_s", "Produce acks=1, raw wire vs Kafka flush 1 s (MiB/s)", "hi", "kafka_flush1s", "loopback_mib_s", None),
    ("raw_fetch_mib_s", "Consume, raw wire vs Kafka flush 1 s (MiB/s)", "hi", "kafka_flush1s", "loopback_mib_s", None),
    ("acks_all_8p_mib_s", "acks=all 8 producers vs Kafka fsync (MiB/s)", "hi", "kafka_fsync", "fdatasync_16m_mib_s", ("ratio_limit", 0.5)),
    ("acks_all_8p_mib_s", "acks=all 8 producers vs Kafka default (MiB/s)", "hi", "kafka", "fdatasync_16m_mib_s", None),
    ("native_4c_mib_s", "Produce acks=1, franz-go 4 clients (MiB/s)", "hi", "kafka", "loopback_mib_s", ("ratio_limit", 0.5)),
    ("kcat_produce_mib_s", "Produce acks=1, librdkafka kcat (MiB/s)", "hi", "kafka", "loopback_mib_s", None),
    ("kcat_consume_mib_s", "Consume, librdkafka kcat -C -e (MiB/s)", "hi", "kafka", "loopback_mib_s", None),
    ("kcat_consume_to_last_mib_s", "Consume, kcat, to the last record (MiB/s)", "hi", "kafka", "loopback_mib_s", None),
    ("native_all_8c_mib_s", "acks=all franz-go 8 clients vs Kafka fsync (MiB/s)", "hi", "kafka_fsync", "fdatasync_16m_mib_s", ("ratio_limit", 0.5)),
    ("native_all_8c_mib_s", "acks=all franz-go 8 clients vs Kafka default (MiB/s)", "hi", "kafka", "fdatasync_16m_mib_s", None),
    ("cpu_native_4c_mib_s", "Broker CPU, produce acks=1 franz-go (ms/MiB)", "lo", "kafka", None, None),
    ("cpu_native_all_8c_mib_s", "Broker CPU, acks=all franz-go vs Kafka fsync (ms/MiB)", "lo", "kafka_fsync", None, None),
    ("cpu_consume_direct", "Broker CPU, consume franz-go (ms/MiB)", "lo", "kafka", None, None),
    ("cpu_kcat_produce", "Broker CPU, produce acks=1 kcat (ms/MiB)", "lo", "kafka", None, None),
    ("cpu_kcat_consume", "Broker CPU, consume kcat (ms/MiB)", "lo", "kafka", None, None),
    ("cpu_raw_produce_mib_s", "Broker CPU, produce raw wire (ms/MiB)", "lo", "kafka", None, None),
    ("cpu_raw_fetch_mib_s", "Broker CPU, fetch raw wire (ms/MiB)", "lo", "kafka", None, None),
    ("cpu_raw_fetch_mib_s", "Broker CPU, fetch raw wire vs Kafka flush 1 s (ms/MiB)", "lo", "kafka_flush1s", None, None),
    ("lat_acks1_p50_ms", "Latency acks=1 p50 (ms)", "lo", "kafka", None, None),
    ("lat_acks1_p99_ms", "Latency acks=1 p99 (ms)", "lo", "kafka", None, ("max", 2)),
    ("lat_raw_acks1_p50_ms", "Latency acks=1 p50, raw wire client (ms)", "lo", "kafka", None, None),
    ("lat_raw_acks1_p99_ms", "Latency acks=1 p99, raw wire client (ms)", "lo", "kafka", None, ("max", 2)),
    ("lat_acksall_p50_ms", "Latency acks=all p50 vs Kafka fsync (ms)", "lo", "kafka_fsync", None, None),
    ("lat_acksall_p99_ms", "Latency acks=all p99 vs Kafka fsync (ms)", "lo", "kafka_fsync", None, None),
    ("lat_acksall_p99_ms", "Latency acks=all p99 vs Kafka default (ms)", "lo", "kafka", None, None),
    ("lat_acks1_ack_p50_ms", "Produce ack acks=1 p50 (ms)", "lo", "kafka", None, None),
    ("lat_acksall_ack_p50_ms", "Produce ack acks=all p50 vs Kafka fsync (ms)", "lo", "kafka_fsync", None, None),
    ("lat_acksall_ack_p50_ms", "Produce ack acks=all p50 vs Kafka default (ms)", "lo", "kafka", None, None),
]
LIMITS = ["loopback_mib_s", "store_mib_s", "store_broker_mib_s", "sendfile_mib_s", "fdatasync_16m_mib_s", "fdatasync_16m_syncs_s", "fdatasync_1m_mib_s", "fdatasync_1m_syncs_s",
          "fdatasync_64k_mib_s", "fdatasync_64k_syncs_s"]


def fmt(v, digits=3):
    if v is None:
        return "-"
    if abs(v) >= 100:
        return f"{v:.0f}"
    return f"{v:.{digits}g}"


def latency_runs(raw):
    """Each latency step's runs in order: p50, p99 and the CPU the host stole meanwhile."""
    runs = []
    for key, broker in sorted(raw):
        if key.startswith("lat_") and key.endswith("_steal_pct"):
            step = key[: -len("_steal_pct")]
            runs.append({"key": step, "broker": broker, "p50_ms": raw.get((step + "_p50_ms", broker), []),
                         "p99_ms": raw.get((step + "_p99_ms", broker), []), "steal_pct": raw[(key, broker)]})
    return runs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("measurements")
    ap.add_argument("out")
    ap.add_argument("--meta", nargs="*", default=[])
    a = ap.parse_args()

    raw = defaultdict(list)
    units = {}
    with open(a.measurements) as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                raw[(d["key"], d["broker"])].append(float(d["value"]))
                units[d["key"]] = d.get("unit", "")
    # limits: the best measurement (load from others only lowers them); figures: the median
    med = {k: (max(v) if k[1] == "machine" else statistics.median(v)) for k, v in raw.items()}
    get = lambda key, broker: med.get((key, broker))

    rows_out = []
    for key, label, better, ref, limit, goal in ROWS:
        k, r = get(key, "ketch"), get(key, ref)
        lim = get(limit, "machine") if limit else None
        vs_kafka = k / r if k is not None and r else None
        vs_limit = k / lim if k is not None and lim else None
        ahead = None if vs_kafka is None else (vs_kafka > 1 if better == "hi" else vs_kafka < 1)
        met = None
        if goal and k is not None:
            met = vs_limit is not None and vs_limit >= goal[1] if goal[0] == "ratio_limit" else k <= goal[1]
        rows_out.append({
            "key": key, "label": label, "better": better, "kafka_variant": ref,
            "ketch": k, "kafka": r, "ketch_over_kafka": vs_kafka, "ketch_ahead": ahead,
            "limit": limit, "ketch_over_limit": vs_limit,
            "goal": None if goal is None else {"kind": goal[0], "value": goal[1]}, "goal_met": met,
            "repeats": {"ketch": len(raw.get((key, "ketch"), [])), "kafka": len(raw.get((key, ref), []))},
        })

    limits = {k: get(k, "machine") for k in LIMITS}
    meta = dict(kv.split("=", 1) for kv in a.meta)
    extra = {"kafka_startup_with_format_ms": get("startup_with_format_ms", "kafka"),
             "consumer_performance_failed_on": sorted({b for (k, b) in raw if k == "consume_perf_failed"}),
             "latency_runs": latency_runs(raw)}
    doc = {"meta": meta, "limits": limits, "rows": rows_out, "extra": extra,
           "raw": [{"key": k, "broker": b, "unit": units.get(k, ""), "values": v} for (k, b), v in sorted(raw.items())]}
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")

    p = sys.stdout.write
    p(f"\nketch vs Apache Kafka 4.3.1 — {meta.get('date', '')} commit {meta.get('commit', '?')}, "
      f"{meta.get('cores', '?')} cores, load average {meta.get('load_at_start', '?')} at start, "
      f"{meta.get('load_at_end', '?')} at end, {meta.get('run_seconds', '?')} s\n")
    p("Machine limits: loopback TCP {} MiB/s; loopback TCP into files (receive+store) {} MiB/s, stored as a broker {} MiB/s; loopback TCP from the page cache (sendfile) {} MiB/s; write+fdatasync 16 MiB: {} MiB/s ({} syncs/s), "
      "1 MiB: {} MiB/s ({} syncs/s), 64 KiB: {} MiB/s ({} syncs/s)\n".format(*(fmt(limits[k]) for k in LIMITS)))
    if extra["kafka_startup_with_format_ms"] is not None:
        p(f"Kafka start-up including storage format: {fmt(extra['kafka_startup_with_format_ms'])} ms\n")
    if extra["consumer_performance_failed_on"]:
        p(f"ConsumerPerformance could not consume from: {', '.join(extra['consumer_performance_failed_on'])}\n")
    head = ["Figure (median)", "ketch", "Kafka", "ketch/Kafka", "ketch/limit", "goal", "met", "n"]
    table = [head]
    for r in rows_out:
        g = r["goal"]
        gs = "-" if g is None else (f">= {g['value']:.0%} of limit" if g["kind"] == "ratio_limit" else f"<= {g['value']:g}")
        table.append([r["label"], fmt(r["ketch"]), fmt(r["kafka"]),
                      fmt(r["ketch_over_kafka"]) + ("" if r["ketch_ahead"] is None else (" ahead" if r["ketch_ahead"] else " behind")),
                      "-" if r["ketch_over_limit"] is None else f"{r['ketch_over_limit']:.1%}", gs,
                      {None: "-", True: "yes", False: "NO"}[r["goal_met"]],
                      f"{r['repeats']['ketch']}/{r['repeats']['kafka']}"])
    w = [max(len(row[i]) for row in table) for i in range(len(head))]
    for i, row in enumerate(table):
        p("| " + " | ".join(c.ljust(w[j]) for j, c in enumerate(row)) + " |\n")
        if i == 0:
            p("|" + "|".join("-" * (x + 2) for x in w) + "|\n")
    p("Latency runs in order (p50 / p99 ms, CPU stolen by the host during the run; whole bench run: "
      f"{meta.get('steal_pct', '?')}% stolen):\n")
    for run in extra["latency_runs"]:
        p(f"  {run['key']} {run['broker']}: " + ", ".join(
            f"{fmt(a)} / {fmt(b)} ({fmt(c, 2)}%)" for a, b, c in zip(run["p50_ms"], run["p99_ms"], run["steal_pct"])) + "\n")
    p("Limits: produce/consume / loopback TCP (the best of 1 and 2 connections, 256 KiB and 1 MiB writes);\n"
      "receive+store = the same with 256 KiB writes, each receiver writing what it reads to a file\n"
      "(no fsync): the least a broker does for a produce, so the produce figure's ceiling here;\n"
      "store as a broker = receive+store cut into appends of one raw-wire batch to BENCH_PARTITIONS files\n"
      "in turn, each fdatasynced every second beside the receive loop: a Kafka-layout broker's ceiling;\n"
      "sendfile = the same with 256 KiB sendfile calls from a file in the page cache: the least a broker\n"
      "does for a fetch; acks=all / write+fdatasync of 16 MiB blocks.\n"
      "Raw wire client = bench/tools/rawwire.c, BENCH_RAW_CONNS connections (default 2) at once; its\n"
      "latency rows: one C process, a batch of 4 records per produce request, long-poll fetches.\n"
      "Kafka fsync = Kafka with flush.messages=1 on the topic (an fsync per append, as ketch's acks=all);\n"
      "Kafka default never fsyncs (flush.messages=Long.MAX); Kafka flush 1 s = flush.ms=1000 on the topic\n"
      "(a sync a second, as ketch's acks=0/1 data with --flush-ms 1000). N producers = N ProducerPerformance JVMs,\n"
      "all bytes over the span of their send windows; franz-go = N clients in one Go process.\n"
      "kcat (librdkafka 2.x, bench/kcat.sh): one process, exec to exit; its read includes ~0.5 s of\n"
      "librdkafka waiting for the end (an empty Fetch held fetch.wait.max.ms), which 'to the last record'\n"
      "leaves out (bench/librdkafka_rows.sh).\n"
      "Broker CPU = user+system CPU of the broker process per MiB moved (franz-go steps; the JVM steps'\n"
      "figures, dominated by idle time while JVMs start, are in the JSON). Latency: produce to consume;\n"
      "produce ack: produce call to acknowledgement, same run. n = samples (ketch/Kafka).\n")


if __name__ == "__main__":
    main()
