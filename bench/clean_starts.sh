#!/usr/bin/env bash
# bench/clean_starts.sh — clean starts of binaries, alternating, on one data dir kept by
# bench/big_log.sh (BENCH_KEEP=1): exec to the first ApiVersions (startprobe), then every
# partition's end offset answered (bench-driver many-ready), what the broker read meanwhile
# (/proc/PID/io: rchar, every read; read_bytes, from the disk) and its RSS; then a clean stop.
#
#   bench/clean_starts.sh WORK_DIR PARTITIONS ROUNDS BINARY...
#
# CS_COLD=1 drops the page cache before each start (needs root: /proc/sys/vm/drop_caches).
# Prints one line per start; ketch's output goes to WORK_DIR/logs/clean-starts.log.
set -euo pipefail
[[ $# -ge 4 ]] || { echo "usage: $0 WORK_DIR PARTITIONS ROUNDS BINARY..." >&2; exit 2; }
work="$1"; parts="$2"; rounds="$3"; shift 3
mkdir -p "$work/logs"
for r in $(seq 1 "$rounds"); do
  for bin in "$@"; do
    if [[ "${CS_COLD:-0}" == 1 ]]; then sync; echo 1 >/proc/sys/vm/drop_caches; fi
    out="$("$work/bin/startprobe" --timeout-s 600 -- "$bin" --listen '127.0.0.1:{PORT}' \
          --data-dir "$work/data" --log-level warn 2>>"$work/logs/clean-starts.log")"
    read -r start_ms port pid <<<"$out"
    t0="$(date +%s%3N)"
    "$work/bin/bench-driver" many-ready "127.0.0.1:$port" big 1 "$parts" >/dev/null
    t1="$(date +%s%3N)"
    io="$(awk '/^rchar:/ { r = $2 } /^read_bytes:/ { d = $2 } END { printf "read_mib=%.1f disk_read_mib=%.1f", r / 1048576, d / 1048576 }' "/proc/$pid/io")"
    rss="$(awk '/^VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$pid/status")"
    kill -TERM "$pid"
    while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
    echo "round=$r bin=$bin start_ms=$start_ms all_served_ms=$(awk -v a=$((t1 - t0)) -v b="$start_ms" 'BEGIN { printf "%.1f", a + b }') $io rss_mib=$rss load=$(cut -d' ' -f1 /proc/loadavg)"
  done
done
