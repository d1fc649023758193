#!/usr/bin/env bash
# bench/big_log.sh — a big log and a kill -9 under load (issue 24), ketch only.
#
#   bench/big_log.sh   (or `make bench-big-log`)  prints a table, writes
#                      bench/results/big-log-<UTC date>.json
#
# Fills BL_GIB GiB into BL_PARTITIONS partitions of one topic with the raw wire client
# (bench/tools/rawwire.c: 1 KiB records, 16 per batch, a batch per partition per request, acks=1,
# two connections), waits BL_SETTLE_S (ketch syncs every --flush-ms, 1 s by default), then keeps
# producing (one connection) and kills ketch with SIGKILL BL_LOAD_S seconds into that load. Then
# a start on that data: exec to the first ApiVersions answered, and to every partition's end
# offset answered (ListOffsets of all, franz-go); the bytes the broker read meanwhile
# (/proc/PID/io rchar: every read(2)/pread(2), page cache or not) against the data's size —
# recovery must not rescan what was flushed before the kill. A clean stop and start after that
# for comparison, the broker's RSS after each start, and a read of everything back from offset 0
# after the clean start (rawwire fetch, one connection: MiB/s, and the RSS after it). Each step
# records the load average; the CPU stolen over the run is recorded.
#
# Environment (defaults in brackets):
#   KETCH_BIN [build/ketch]  BL_GIB [4]  BL_PARTITIONS [200]  BL_LOAD_S [3]  BL_SETTLE_S [3]
#   BL_KETCH_ARGS []  extra ketch flags   BENCH_KEEP [0]  1: keep the work dir
#   BL_BATCH_RECORDS [16]  1 KiB records per batch (16: ~16.5 KiB batches, one index entry each;
#                          4: ~4 KiB batches, the densest index at index.interval.bytes 4096)
#   BL_SEGMENT_BYTES []  the topic's segment.bytes (Kafka's default, 1 GiB, when unset): smaller
#                        segments put the data in closed segments, whose indexes memory keeps
#                        1/64 of (docs/design/log.md, "Many partitions")
# The issue's size: BL_GIB=50 BL_PARTITIONS=200 (about 52 GB free on /tmp's disk; ~5 minutes).
# A quick run: BL_GIB=0.5 BL_PARTITIONS=20.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
gib="${BL_GIB:-4}"
parts="${BL_PARTITIONS:-200}"
load_s="${BL_LOAD_S:-3}"
settle_s="${BL_SETTLE_S:-3}"
batch_records="${BL_BATCH_RECORDS:-16}"
read -r -a ketch_extra <<<"${BL_KETCH_ARGS:-}"
[[ -n "${BL_SEGMENT_BYTES:-}" ]] && export BENCH_TOPIC_CONFIGS="segment.bytes=$BL_SEGMENT_BYTES"

bench_init big-log
record() { printf '{"key":"%s","value":%s,"unit":"%s"}\n' "$1" "$2" "${3:-}" >>"$m"; }
rchar_mib() { awk '/^rchar:/ { printf "%.1f", $2 / 1048576 }' "/proc/$1/io"; }

pid=""; port=""; load_pid=""
cleanup() {
  set +e
  [[ -n "$load_pid" ]] && kill "$load_pid" 2>/dev/null
  [[ -n "$pid" ]] && ! gone "$pid" && { kill -9 "$pid"; wait_gone "$pid"; }
  remove_work
}
trap cleanup EXIT
trap 'exit 130' INT TERM

build_tools startprobe rawwire
ulimit -n "$(ulimit -Hn)"

# served KEY: exec-to-ApiVersions of the start just made, then the time until every partition's
# end offset is answered, and what the broker read until then.
served() {
  local t0 out
  record "$1_start_ms" "$start_ms" ms
  t0="$(now_ms)"
  out="$("$drv" many-ready "127.0.0.1:$port" big 1 "$parts")" || die "many-ready ($1)"
  record "$1_all_served_ms" "$(awk -v a="$(( $(now_ms) - t0 ))" -v b="$start_ms" 'BEGIN { printf "%.1f", a + b }')" ms
  record "$1_read_mib" "$(rchar_mib "$pid")" MiB
  record "$1_end_offsets" "$(jget "$out" end_offsets)"
  record "$1_rss_mib" "$(rss_mib "$pid")" MiB
  record "$1_load" "$(cut -d' ' -f1 /proc/loadavg)"
}

read -r s0 a0 < <(cpu_steal)
t_start="$(date -u +%FT%TZ)"; load_start="$(cut -d" " -f1-3 /proc/loadavg)"
start_probed
"$drv" many-create "127.0.0.1:$port" big 1 "$parts" >/dev/null || die "many-create"
mib_each="$(awk -v g="$gib" 'BEGIN { printf "%d", g * 1024 / 2 }')"
say "fill: $gib GiB into $parts partitions"
t0="$(now_ms)"
out="$("$work/bin/rawwire" -c 2 produce 127.0.0.1 "$port" big-0 "$parts" "$mib_each" 1024 "$batch_records")" || die "fill"
record fill_mib_s "${out%% *}" MiB/s
record fill_s "$(( ($(now_ms) - t0) / 1000 ))" s
record data_mib "$(du -sm "$work/data" | cut -f1)" MiB
sleep "$settle_s"
say "load for ${load_s}s, then kill -9"
"$work/bin/rawwire" produce 127.0.0.1 "$port" big-0 "$parts" 100000 1024 16 >/dev/null 2>&1 &
load_pid=$!
sleep "$load_s"
stop_probed KILL
wait "$load_pid" 2>/dev/null || true; load_pid=""
say "start after the kill -9"
start_probed; served after_kill
say "clean stop, start"
stop_probed TERM; record clean_stop_ms "$stop_ms" ms
start_probed; served after_clean_stop
say "read everything back"
data_mib="$(du -sm "$work/data" | cut -f1)"
out="$("$work/bin/rawwire" fetch 127.0.0.1 "$port" big-0 "$parts" "$(( data_mib * 9 / 10 ))")" || die "read back"
record read_back_mib_s "${out%% *}" MiB/s
record read_back_rss_mib "$(rss_mib "$pid")" MiB
stop_probed TERM
read -r s1 a1 < <(cpu_steal)
record steal_pct "$(awk -v n=$((s1 - s0)) -v d=$((a1 - a0)) 'BEGIN { printf "%.2f", d ? 100 * n / d : 0 }')" %

mkdir -p "$here/results"
out="$here/results/big-log-$(date -u +%Y-%m-%dT%H%M%SZ).json"  # seconds: runs back to back
commit="$(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- src || echo +dirty)"
python3 - "$m" "$out" <<EOF
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
meta = {"start": "$t_start", "end": "$(date -u +%FT%TZ)", "commit": "$commit", "ketch_bin": "$ketch_bin",
        "ketch_args": "${BL_KETCH_ARGS:-}", "segment_bytes": "${BL_SEGMENT_BYTES:-}", "batch_records": $batch_records, "gib": $gib, "partitions": $parts, "load_s": $load_s,
        "load_start": "$load_start", "load_end": "$(cut -d' ' -f1-3 /proc/loadavg)"}
for r in rows:
    print(f"{r['key']:32} {r['value']:>12} {r['unit']}")
json.dump({"meta": meta, "raw": rows}, open(sys.argv[2], "w"), indent=1)
print("written", sys.argv[2])
EOF
