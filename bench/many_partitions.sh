#!/usr/bin/env bash
# bench/many_partitions.sh — ketch against Apache Kafka 4.3.1 with many partitions (issue 24).
#
#   bench/many_partitions.sh     (or `make bench-many`)  prints a table, writes
#                                bench/results/many-partitions-<UTC date>.json
#
# Per broker, in one run: start-up on an empty data dir (exec to the first ApiVersions answer),
# create TOPICS x PARTITIONS, idle RSS and open fds, Metadata latency for every topic and for
# one, franz-go produce of 1 KiB records acks=1 round-robin over every partition (the first
# round apart: ketch creates a partition's files on its first write, Kafka at CreateTopics),
# consume everything back (group-less), then DATA_MIB MiB into each of the first DATA_PARTITIONS
# partitions, a clean stop (timed), and start-up with that data: exec to the first ApiVersions
# and to every partition's end offset answered (ListOffsets); RSS and fds after it.
# Medians of the repeats; the CPU stolen by the host over each broker's part is recorded.
#
# Environment (defaults in brackets):
#   KETCH_BIN [build/ketch]  MANY_TOPICS [100]  MANY_PARTITIONS [100] (per topic)
#   MANY_RECORDS [200000]    records per produce round (1 KiB each)  MANY_REPEATS [3]
#   MANY_DATA_PARTITIONS [1000]  MANY_DATA_MIB [2]  (the issue's goal is 1 GiB each; scale it to
#                            the disk: 2 brokers x DATA_PARTITIONS x DATA_MIB must fit)
#   MANY_METADATA_REQUESTS [30]  BENCH_SKIP_KAFKA [0]  BENCH_KEEP [0] (keep the work dir)
#   MANY_KETCH_ARGS []       extra ketch flags
#   MANY_BROKERS [ketch kafka]  which brokers to run (ratios need both in one run)
# The JSON records the commit of the work tree when the run started (the binary may be older:
# KETCH_BIN), the ketch flags and the fd limit.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
topics="${MANY_TOPICS:-100}"
parts="${MANY_PARTITIONS:-100}"
records="${MANY_RECORDS:-200000}"
repeats="${MANY_REPEATS:-3}"
data_parts="${MANY_DATA_PARTITIONS:-1000}"
data_mib="${MANY_DATA_MIB:-2}"
md_reqs="${MANY_METADATA_REQUESTS:-30}"
skip_kafka="${BENCH_SKIP_KAFKA:-0}"
read -r -a ketch_extra <<<"${MANY_KETCH_ARGS:-}"
(( data_parts % parts == 0 && data_parts / parts <= topics )) ||
  { echo "MANY_DATA_PARTITIONS must be a multiple of MANY_PARTITIONS, at most all partitions" >&2; exit 2; }

bench_init many
export KAFKA_REF_RUN="$work/kafka"
record() { printf '{"key":"%s","broker":"%s","value":%s,"unit":"%s"}\n' "$1" "$2" "$3" "${4:-}" >>"$m"; }

ketch_pid=""
cleanup() {
  set +e
  [[ -n "$ketch_pid" ]] && { kill "$ketch_pid"; wait_gone "$ketch_pid"; }
  [[ "$skip_kafka" == 1 ]] || "$kafka_sh" stop >/dev/null 2>&1
  remove_work
}
trap cleanup EXIT
trap 'exit 130' INT TERM

build_tools startprobe
[[ "$skip_kafka" == 1 || " ${MANY_BROKERS:-kafka} " != *" kafka "* ]] || "$kafka_sh" fetch
# Kafka holds one fd per segment and ketch one per open segment: room for 10k partitions and more.
ulimit -n "$(ulimit -Hn)"

# ---------------------------------------------------------------- brokers
port=""; pid=""
# start BROKER: sets start_ms (exec to the first ApiVersions answer), port, pid.
start() {
  local out ms
  if [[ "$1" == ketch ]]; then
    out="$("$work/bin/startprobe" --timeout-s 600 ${port:+--port "$port"} -- "$work/bin/ketch" \
          --listen '127.0.0.1:{PORT}' --data-dir "$work/ketch-data" --log-level warn "${ketch_extra[@]}" \
          2>>"$work/logs/ketch.log")" || die "ketch did not start (log: $work/logs/ketch.log)"
    read -r ms port pid <<<"$out"; ketch_pid="$pid"
  else
    out="$("$work/bin/startprobe" --timeout-s 900 ${port:+--port "$port"} -- "$kafka_sh" start --port '{PORT}' \
          2>>"$work/logs/kafka-start.log")" || die "Kafka did not start (log: $work/logs/kafka-start.log)"
    read -r ms port pid <<<"$out"; wait_gone "$pid"
    pid="$(cat "$KAFKA_REF_RUN/kafka.pid")"
  fi
  start_ms="$ms"
}
stop() {  # stop BROKER: a clean stop (SIGTERM, wait for the exit); sets stop_ms
  local t0; t0="$(now_ms)"
  if [[ "$1" == ketch ]]; then kill "$pid"; wait_gone "$pid" || die "ketch did not stop"; ketch_pid=""
  else kill -TERM "$pid"; wait_gone "$pid" || die "Kafka did not stop"; "$kafka_sh" stop >/dev/null; fi
  stop_ms=$(( $(now_ms) - t0 ))
}
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
clk_tck="$(getconf CLK_TCK)"
cpu_ms_per_mib() { awk -v d=$(( $(cpu_ticks "$pid") - $1 )) -v hz="$clk_tck" -v b="$2" 'BEGIN { printf "%.2f", d * 1000 / hz / (b / 1048576) }'; }

run_broker() {
  local b="$1" boot out i s0 a0 s1 a1 c0 total=$((topics * parts))
  read -r s0 a0 < <(cpu_steal)
  port=""
  say "$b: start-up, empty"
  if [[ "$b" == kafka ]]; then "$kafka_sh" clean >/dev/null; else rm -rf "$work/ketch-data"; fi
  start "$b"; record startup_empty_ms "$b" "$start_ms" ms
  boot="127.0.0.1:$port"
  sleep 1; record rss_start_mib "$b" "$(rss_mib "$pid")" MiB
  say "$b: create $topics x $parts"
  out="$("$drv" many-create "$boot" t "$topics" "$parts")" || die "many-create on $b"
  record create_s "$b" "$(jget "$out" seconds)" s
  sleep 2; record rss_idle_created_mib "$b" "$(rss_mib "$pid")" MiB; record fds_idle_created "$b" "$(fds "$pid")"
  say "$b: metadata"
  out="$("$drv" many-metadata "$boot" t "$topics" --requests "$md_reqs")" || die "many-metadata on $b"
  [[ "$(jget "$out" all_partitions)" == "$total" ]] || die "metadata of $b: $(jget "$out" all_partitions) partitions"
  for k in all_p50_ms all_p99_ms one_p50_ms one_p99_ms; do record "metadata_$k" "$b" "$(jget "$out" "$k")" ms; done
  say "$b: produce round-robin over $total partitions, $records x 1 KiB, 1 + $repeats rounds"
  for i in $(seq 0 "$repeats"); do
    c0="$(cpu_ticks "$pid")"
    out="$("$drv" many-produce "$boot" t "$topics" "$parts" --records "$records")" || die "many-produce on $b"
    if (( i == 0 )); then record produce_first_mib_s "$b" "$(jget "$out" mib_s)" MiB/s
    else record produce_mib_s "$b" "$(jget "$out" mib_s)" MiB/s
         record cpu_produce_ms_per_mib "$b" "$(cpu_ms_per_mib "$c0" "$(jget "$out" bytes)")" ms/MiB; fi
  done
  record rss_after_produce_mib "$b" "$(rss_mib "$pid")" MiB; record fds_after_produce "$b" "$(fds "$pid")"
  say "$b: consume back"
  for i in $(seq 1 "$repeats"); do
    c0="$(cpu_ticks "$pid")"
    out="$("$drv" many-consume "$boot" t "$topics" "$parts" $((records * (repeats + 1))))" || die "many-consume on $b"
    record consume_mib_s "$b" "$(jget "$out" mib_s)" MiB/s
    record cpu_consume_ms_per_mib "$b" "$(cpu_ms_per_mib "$c0" "$(jget "$out" bytes)")" ms/MiB
  done
  say "$b: $data_mib MiB into each of $data_parts partitions"
  out="$("$drv" many-produce "$boot" t $((data_parts / parts)) "$parts" --records $((data_parts * data_mib * 1024)))" ||
    die "data produce on $b"
  record produce_data_mib_s "$b" "$(jget "$out" mib_s)" MiB/s
  sleep 2; record rss_with_data_mib "$b" "$(rss_mib "$pid")" MiB; record fds_with_data "$b" "$(fds "$pid")"
  say "$b: clean stop, start-up with data"
  stop "$b"; record stop_ms "$b" "$stop_ms" ms
  local t0; t0="$(now_ms)"
  start "$b"; record startup_data_ms "$b" "$start_ms" ms
  out="$("$drv" many-ready "$boot" t "$topics" "$parts")" || die "many-ready on $b"
  record ready_data_ms "$b" $(( $(now_ms) - t0 )) ms
  sleep 2; record rss_restarted_mib "$b" "$(rss_mib "$pid")" MiB; record fds_restarted "$b" "$(fds "$pid")"
  record data_dir_mib "$b" "$(du -sm "$([[ $b == ketch ]] && echo "$work/ketch-data" || echo "$KAFKA_REF_RUN/data")" | cut -f1)" MiB
  stop "$b"
  read -r s1 a1 < <(cpu_steal)
  record steal_pct "$b" "$(awk -v n=$((s1 - s0)) -v d=$((a1 - a0)) 'BEGIN { printf "%.2f", d ? 100 * n / d : 0 }')" %
}

t_start="$(date -u +%FT%TZ)"; load_start="$(cut -d" " -f1-3 /proc/loadavg)"
commit="$(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- src || echo +dirty)"
for b in ${MANY_BROKERS:-ketch kafka}; do
  [[ "$b" == kafka && "$skip_kafka" == 1 ]] || run_broker "$b"
done
load_end="$(cut -d" " -f1-3 /proc/loadavg)"

# ---------------------------------------------------------------- report
mkdir -p "$here/results"
out="$here/results/many-partitions-$(date -u +%Y-%m-%dT%H%MZ).json"
python3 - "$m" "$out" <<EOF
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
meta = {"start": "$t_start", "end": "$(date -u +%FT%TZ)", "commit": "$commit", "ketch_bin": "$ketch_bin", "ketch_args": "${MANY_KETCH_ARGS:-}",
        "nofile_limit": "$(ulimit -n)",
        "load_start": "$load_start", "load_end": "$load_end", "topics": $topics, "partitions_per_topic": $parts,
        "records_per_round": $records, "repeats": $repeats, "data_partitions": $data_parts, "data_mib_each": $data_mib}
med = {}
for r in rows:
    med.setdefault(r["key"], {}).setdefault(r["broker"], []).append(r["value"])
table = []
print(f"{'figure (median)':34} {'ketch':>10} {'kafka':>10} {'ketch/kafka':>12}")
for k, by in med.items():
    kv = statistics.median(by["ketch"]) if "ketch" in by else None
    fv = statistics.median(by["kafka"]) if "kafka" in by else None
    ratio = kv / fv if kv is not None and fv else None
    table.append({"key": k, "ketch": kv, "kafka": fv, "ratio": ratio})
    f = lambda v: "-" if v is None else f"{v:.4g}"
    print(f"{k:34} {f(kv):>10} {f(fv):>10} {f(ratio):>12}")
json.dump({"meta": meta, "medians": table, "raw": rows}, open(sys.argv[2], "w"), indent=1)
print("written", sys.argv[2])
EOF
