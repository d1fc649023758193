#!/usr/bin/env bash
# bench/produce_rows.sh — only the real-client acks=1 produce rows of bench/run.sh, for one or
# more ketch binaries beside the reference Kafka 4.3.1, in rounds whose order turns each round
# (a shared host drifts; ratios are taken within a round).
#
#   bench/produce_rows.sh NAME=BINARY [NAME=BINARY ...]   e.g. main=/tmp/ketch-main new=build/ketch
#
# Rows, as bench/run.sh takes them: ProducerPerformance acks=1 with 1 process x BENCH_RECORDS_1P
# and 4 processes x BENCH_RECORDS_4P (the union of the send windows), franz-go (bench/driver)
# 4 clients for BENCH_NATIVE_SECONDS, 6 partitions, 1 KiB records; each with the broker's CPU
# per MiB and the CPU stolen by the host during the step. With PRODUCE_TRACE=1 the franz-go row
# also records the client's view of each round trip (bench-driver produce --trace).
# Output: one JSON object per measurement on stdout (and in BENCH_OUT if set; bench/rowslib.sh).
#
# Environment: BENCH_ROUNDS [3], BENCH_RECORDS_1P [100000], BENCH_RECORDS_4P [25000],
# BENCH_NATIVE_SECONDS [3], BENCH_SKIP_PP [0] (1: franz-go row only).
set -euo pipefail

rounds="${BENCH_ROUNDS:-3}" rec_1p="${BENCH_RECORDS_1P:-100000}" rec_4p="${BENCH_RECORDS_4P:-25000}"
native_s="${BENCH_NATIVE_SECONDS:-3}" skip_pp="${BENCH_SKIP_PP:-0}"
. "$(dirname "${BASH_SOURCE[0]}")/rowslib.sh"
rows_start produce-rows "$@"

# pp NAME ROUND PROCS RECORDS ROW: ProducerPerformance, the union of the send windows (bench/run.sh produce)
pp() {
  local n="$1" t="r$2-$5" c0 s0 a0 i pids=() rate
  "$drv" create-topic "${boot[$n]}" "$t" 6 >/dev/null
  c0=$(ticks "${pid[$n]}"); read -r s0 a0 < <(steal)
  for i in $(seq 1 "$3"); do
    ( "$kafka_sh" tools org.apache.kafka.tools.ProducerPerformance --bootstrap-server "${boot[$n]}" --topic "$t" \
        --num-records "$4" --record-size 1024 --throughput -1 --command-property acks=1 2>&1 |
      while IFS= read -r l; do printf '%s %s\n' "$(date +%s.%N)" "$l"; done ) >"$work/pp-$i.out" &
    pids+=($!)
  done
  for i in "${pids[@]}"; do wait "$i"; done
  rate="$(cat "$work"/pp-*.out | awk -v n="$4" '$2 == n && $3 == "records" && $4 == "sent," {
      end = $1 + 0; start = end - n / ($5 + 0); if (!c || start < lo) lo = start; if (!c || end > hi) hi = end; c++ }
    END { printf "%.2f", c * n * 1024 / 1048576 / (hi - lo) }')"
  rm -f "$work"/pp-*.out
  step "$n" "$5" "$2" $(( $3 * $4 * 1024 )) "$c0" "$s0" "$a0" "$rate"
  "$drv" delete-topic "${boot[$n]}" "$t" >/dev/null
}
native() {
  local n="$1" t="r$2-native" c0 s0 a0 res
  "$drv" create-topic "${boot[$n]}" "$t" 6 >/dev/null
  c0=$(ticks "${pid[$n]}"); read -r s0 a0 < <(steal)
  res="$("$drv" produce "${boot[$n]}" "$t" --clients 4 --acks 1 --seconds "$native_s" --record-size 1024 \
         $([[ ${PRODUCE_TRACE:-0} == 1 ]] && echo --trace))"
  step "$n" native_4c "$2" "$(echo "$res" | python3 -c 'import json,sys; print(json.load(sys.stdin)["bytes"])')" \
    "$c0" "$s0" "$a0" "$(echo "$res" | python3 -c 'import json,sys; print(round(json.load(sys.stdin)["mib_s"], 1))')" \
    "$(echo "$res" | python3 -c 'import json,sys; t=json.load(sys.stdin).get("trace"); print(",\"trace\":" + json.dumps(t) if t else "")')"
  "$drv" delete-topic "${boot[$n]}" "$t" >/dev/null
}

for r in $(seq 1 "$rounds"); do
  order=($(rows_order "$r"))
  say "round $r: ${order[*]}"
  for n in "${order[@]}"; do
    native "$n" "$r"
    if [[ "$skip_pp" != 1 ]]; then pp "$n" "$r" 1 "$rec_1p" produce_1p; pp "$n" "$r" 4 "$rec_4p" produce_4p; fi
  done
done
