#!/usr/bin/env bash
# bench/consume_rows.sh — only the real-client consume rows and the acks=1 produce-to-consume
# latency row of bench/run.sh, for one or more ketch binaries beside the reference Kafka 4.3.1,
# in rounds whose order turns each round (a shared host drifts; ratios are taken within a round).
#
#   bench/consume_rows.sh NAME=BINARY [NAME=BINARY ...]   e.g. main=/tmp/ketch-main new=build/ketch
#
# Each broker gets one topic of 6 partitions filled once by 4 ProducerPerformance x
# BENCH_RECORDS_4P 1 KiB records (acks=1), as bench/run.sh fills the one it consumes. Each
# round then takes, per broker:
#   consume_perf    ConsumerPerformance, a fresh group, every record (its fetch.MB.sec)
#   consume_direct  franz-go without a group (bench-driver consume), 3 passes; with
#                   CONSUME_TRACE=1 (the default) each pass carries the client's view of its
#                   Fetch round trips (bench/driver/rt_trace.go): answer bytes, last request
#                   byte -> answer read whole (answer_ms), answer -> next request (gap_ms)
#   latency_acks1   franz-go produce-to-consume latency at BENCH_LAT_RATE_MIB for
#                   BENCH_LAT_SECONDS after BENCH_LAT_WARMUP_S, a fresh topic (p50/p99/p999 ms)
# with the broker's CPU per MiB, the client's CPU (user + system seconds, page faults and
# context switches: bench/client_cost.py) and the CPU stolen by the host during the step. After
# the fill, one "fetch_shape" line per broker: what a read of the topic gets in each Fetch answer
# (bench/fetch_shape.py: answers, batches, records per batch, partial batches). The ratios
# NAME/kafka per round, their median and spread, come last (bench/rows_summary.py). Output: JSON lines on stdout and in BENCH_OUT
# [bench/results/consume-rows-<UTC time>.jsonl].
#
# Environment: BENCH_ROUNDS [5], BENCH_RECORDS_4P [25000], BENCH_LAT_RATE_MIB [10],
# BENCH_LAT_SECONDS [8], BENCH_LAT_WARMUP_S [2], BENCH_SKIP_PERF [0] (1: no ConsumerPerformance),
# CONSUME_TRACE [1].
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rounds="${BENCH_ROUNDS:-5}" rec_4p="${BENCH_RECORDS_4P:-25000}" skip_perf="${BENCH_SKIP_PERF:-0}"
lat_rate="${BENCH_LAT_RATE_MIB:-10}" lat_s="${BENCH_LAT_SECONDS:-8}" lat_warm="${BENCH_LAT_WARMUP_S:-2}"
trace="$([[ ${CONSUME_TRACE:-1} == 1 ]] && echo --trace || true)"
export BENCH_OUT="${BENCH_OUT:-$here/results/consume-rows-$(date -u +%Y-%m-%dT%H%MZ).jsonl}"
. "$here/rowslib.sh"
rows_start consume-rows "$@"
n_rec=$((4 * rec_4p))

# timed OUTFILE CMD...: runs CMD with its stdout in OUTFILE; prints the client's cost as JSON
# fields (bench/client_cost.py: client_cpu_s to the microsecond, page faults, context switches).
timed() { python3 "$here/client_cost.py" "$@" || true; }  # (a failed step is reported by its caller)
jfield() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }
# The trace (or nothing) of a driver result as extra JSON for step.
jtrace() {
  python3 -c 'import json,sys; t=json.load(open(sys.argv[1])).get("trace"); print(",\"trace\":" + json.dumps(t) if t else "")' "$1"
}

fill() {  # fill NAME: the topic every round reads (bench/run.sh produce, 4 processes)
  local n="$1" i pids=()
  "$drv" create-topic "${boot[$n]}" consume 6 >/dev/null
  for i in 1 2 3 4; do
    "$kafka_sh" tools org.apache.kafka.tools.ProducerPerformance --bootstrap-server "${boot[$n]}" --topic consume \
      --num-records "$rec_4p" --record-size 1024 --throughput -1 --command-property acks=1 >"$work/fill-$n-$i.out" 2>&1 &
    pids+=($!)
  done
  for i in "${pids[@]}"; do wait "$i"; done
}

consume_perf() {
  local n="$1" r="$2" c0 s0 a0 cpu rate f="$work/perf-$1-$2.out"
  c0=$(ticks "${pid[$n]}"); read -r s0 a0 < <(steal)
  cpu="$(timed "$f" "$kafka_sh" tools org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "${boot[$n]}" \
    --topic consume --num-records "$n_rec" --timeout 10000 --group "rows-r$r")"
  # fields: ..., data.consumed.in.nMsg (5), ..., fetch.MB.sec (9)
  rate="$(awk -F', ' -v n="$n_rec" 'NF >= 10 && $5 == n { print $9 }' "$f" | tail -n 1)"
  [[ -n "$rate" ]] || { say "ConsumerPerformance did not read $n_rec records from $n (see $f)"; return; }
  step "$n" consume_perf "$r" $((n_rec * 1024)) "$c0" "$s0" "$a0" "$rate" ",$cpu"
}

consume_direct() {
  local n="$1" r="$2" c0 s0 a0 cpu pass f="$work/direct-$1.json"
  for pass in 1 2 3; do
    c0=$(ticks "${pid[$n]}"); read -r s0 a0 < <(steal)
    cpu="$(timed "$f" "$drv" consume "${boot[$n]}" consume "$n_rec" $trace)"
    step "$n" consume_direct "$r" "$(jfield "$f" bytes)" "$c0" "$s0" "$a0" "$(jfield "$f" mib_s)" \
      ",\"pass\":$pass,$cpu$(jtrace "$f")"
  done
}

latency() {
  local n="$1" r="$2" t="lat-r$2" c0 s0 a0 cpu f="$work/latency-$1.json" extra
  "$drv" create-topic "${boot[$n]}" "$t" 6 >/dev/null
  c0=$(ticks "${pid[$n]}"); read -r s0 a0 < <(steal)
  cpu="$(timed "$f" "$drv" latency "${boot[$n]}" "$t" --rate-mib "$lat_rate" --record-size 1024 \
         --seconds "$lat_s" --warmup-s "$lat_warm" --acks 1 $trace)"
  extra="$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print("".join(",\"%s\":%s" % (k, round(d[k], 3)) for k in ("p50_ms", "p99_ms", "p999_ms", "max_ms", "ack_p50_ms", "ack_p99_ms")))' "$f")"
  step "$n" latency_acks1 "$r" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["records_sent"] * 1024)' "$f")" \
    "$c0" "$s0" "$a0" "$(jfield "$f" achieved_mib_s)" "$extra,$cpu$(jtrace "$f")"
  "$drv" delete-topic "${boot[$n]}" "$t" >/dev/null
}

for n in "${names[@]}"; do
  say "filling $n: 4 ProducerPerformance x $rec_4p"; fill "$n"
  python3 "$here/fetch_shape.py" "${boot[$n]}" consume --name "$n" | tee -a "$BENCH_OUT"  # what a read gets
done
for r in $(seq 1 "$rounds"); do
  order=($(rows_order "$r"))
  say "round $r: ${order[*]}"
  for n in "${order[@]}"; do
    [[ "$skip_perf" == 1 ]] || consume_perf "$n" "$r"
    consume_direct "$n" "$r"
    latency "$n" "$r"
  done
done
python3 "$here/rows_summary.py" "$BENCH_OUT" | tee -a "$BENCH_OUT"
say "results: $BENCH_OUT"
