#!/usr/bin/env bash
# bench/first_reads.sh — partitions that exist but were never written (issue 24), ketch only.
#
#   bench/first_reads.sh   (or `make bench-first-reads`)  prints a table, writes
#                          bench/results/first-reads-<UTC date>.json
#
# On TOPICS x PARTITIONS partitions of which only the first DATA_TOPICS topics are written:
# start-up on an empty data dir, CreateTopics of all (until all are listed with a leader), idle RSS
# and open fds, RECORDS 1 KiB records round-robin into the written partitions, a clean stop, then
# start-up with that data and the first ListOffsets (end offsets) of every partition after it —
# the first read of the partitions never written, which used to create each one's directory and
# files under the log manager's lock — a second one, and the same after a kill -9. Partition
# directories on disk are counted after each step: reads must create none. Broker syscalls
# during the first ListOffsets are counted with `strace -c -f` when FR_STRACE=1 (slows it down).
# Medians of FR_REPEATS runs of the whole sequence; the CPU stolen by the host is recorded.
#
# Environment (defaults in brackets):
#   KETCH_BIN [build/ketch]  FR_TOPICS [100]  FR_PARTITIONS [100] (per topic)  FR_DATA_TOPICS [10]
#   FR_RECORDS [20000]  FR_REPEATS [3]  FR_STRACE [0]  FR_LABEL [the commit]  BENCH_KEEP [0]
#   FR_KETCH_ARGS []  extra ketch flags
# A quick run: FR_TOPICS=10 FR_PARTITIONS=20 FR_DATA_TOPICS=1 FR_RECORDS=1000 FR_REPEATS=1.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
topics="${FR_TOPICS:-100}"
parts="${FR_PARTITIONS:-100}"
data_topics="${FR_DATA_TOPICS:-10}"
records="${FR_RECORDS:-20000}"
repeats="${FR_REPEATS:-3}"
use_strace="${FR_STRACE:-0}"
read -r -a ketch_extra <<<"${FR_KETCH_ARGS:-}"
(( data_topics <= topics )) || { echo "FR_DATA_TOPICS must be at most FR_TOPICS" >&2; exit 2; }

bench_init first-reads
record() { printf '{"key":"%s","value":%s,"unit":"%s"}\n' "$1" "$2" "${3:-}" >>"$m"; }
dirs() { find "$work/data/logs" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | wc -l; }

pid=""; port=""
cleanup() {
  set +e
  [[ -n "$pid" ]] && ! gone "$pid" && { kill -9 "$pid"; wait_gone "$pid"; }
  remove_work
}
trap cleanup EXIT
trap 'exit 130' INT TERM

build_tools startprobe
ulimit -n "$(ulimit -Hn)"

# ready KEY: times ListOffsets of every partition until all answer (optionally under strace).
ready() {
  local t0 out st=""
  if [[ "$use_strace" == 1 && "$1" == first_* ]]; then
    st="$work/logs/strace-$1-$run.txt"; strace -c -f -p "$pid" -o "$st" & local spid=$!; sleep 0.5
  fi
  t0="$(now_ms)"
  out="$("$drv" many-ready "127.0.0.1:$port" t "$topics" "$parts")" || die "many-ready ($1)"
  record "$1_ms" $(( $(now_ms) - t0 )) ms
  [[ "$(jget "$out" end_offsets)" == "$records" ]] || die "$1: end offsets sum to $(jget "$out" end_offsets), not $records"
  if [[ -n "$st" ]]; then
    kill -INT "$spid"; wait "$spid" || true
    record "$1_fsync_calls" "$(awk '$NF == "fsync" || $NF == "fdatasync" { n += $4 } END { print n + 0 }' "$st")"
    record "$1_mkdir_calls" "$(awk '$NF == "mkdir" || $NF == "mkdirat" { n += $4 } END { print n + 0 }' "$st")"
  fi
}

one_run() {
  local out s0 a0 s1 a1
  read -r s0 a0 < <(cpu_steal)
  rm -rf "$work/data"; port=""
  say "run $run: start-up, empty"
  start_probed; record startup_empty_ms "$start_ms" ms
  say "run $run: create $topics x $parts"
  out="$("$drv" many-create "127.0.0.1:$port" t "$topics" "$parts")" || die "many-create"
  record create_s "$(jget "$out" seconds)" s
  record dirs_after_create "$(dirs)"
  sleep 1; record rss_idle_created_mib "$(rss_mib "$pid")" MiB; record fds_idle_created "$(fds "$pid")"
  say "run $run: $records x 1 KiB into the $((data_topics * parts)) partitions of $data_topics topics"
  out="$("$drv" many-produce "127.0.0.1:$port" t "$data_topics" "$parts" --records "$records")" || die "produce"
  record dirs_after_produce "$(dirs)"
  say "run $run: clean stop, start-up with the data, ListOffsets of all $((topics * parts))"
  stop_probed TERM; record stop_ms "$stop_ms" ms
  start_probed; record startup_data_ms "$start_ms" ms
  ready first_list_offsets_after_start; record dirs_after_first_reads "$(dirs)"
  ready second_list_offsets
  sleep 1; record rss_after_reads_mib "$(rss_mib "$pid")" MiB; record fds_after_reads "$(fds "$pid")"
  say "run $run: kill -9, start-up, ListOffsets of all"
  stop_probed KILL
  start_probed; record startup_after_kill_ms "$start_ms" ms
  ready first_list_offsets_after_kill; record dirs_after_kill_reads "$(dirs)"
  stop_probed TERM
  read -r s1 a1 < <(cpu_steal)
  record steal_pct "$(awk -v n=$((s1 - s0)) -v d=$((a1 - a0)) 'BEGIN { printf "%.2f", d ? 100 * n / d : 0 }')" %
}

t_start="$(date -u +%FT%TZ)"; load_start="$(cut -d" " -f1-3 /proc/loadavg)"
commit="$(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- src || echo +dirty)"
for run in $(seq 1 "$repeats"); do one_run; done
load_end="$(cut -d" " -f1-3 /proc/loadavg)"

mkdir -p "$here/results"
out="$here/results/first-reads-$(date -u +%Y-%m-%dT%H%MZ).json"
python3 - "$m" "$out" <<EOF
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
meta = {"start": "$t_start", "end": "$(date -u +%FT%TZ)", "commit": "$commit", "label": "${FR_LABEL:-$commit}",
        "ketch_bin": "$ketch_bin", "ketch_args": "${FR_KETCH_ARGS:-}", "nofile_limit": "$(ulimit -n)",
        "load_start": "$load_start", "load_end": "$load_end", "topics": $topics, "partitions_per_topic": $parts,
        "data_topics": $data_topics, "records": $records, "repeats": $repeats}
med = {}
for r in rows:
    med.setdefault(r["key"], []).append(r["value"])
table = []
print(f"{'figure (median of %d)' % $repeats:40} {'value':>10}  all runs")
for k, vs in med.items():
    v = statistics.median(vs)
    table.append({"key": k, "median": v, "runs": vs})
    print(f"{k:40} {v:>10.4g}  {vs}")
json.dump({"meta": meta, "medians": table, "raw": rows}, open(sys.argv[2], "w"), indent=1)
print("written", sys.argv[2])
EOF
