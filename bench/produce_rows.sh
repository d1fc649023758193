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
# Output: one JSON object per measurement on stdout (and in BENCH_OUT if set).
#
# Environment: BENCH_ROUNDS [3], BENCH_RECORDS_1P [100000], BENCH_RECORDS_4P [25000],
# BENCH_NATIVE_SECONDS [3], BENCH_SKIP_PP [0] (1: franz-go row only).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
kafka_sh="$here/../conformance/reference/kafka.sh"
rounds="${BENCH_ROUNDS:-3}" rec_1p="${BENCH_RECORDS_1P:-100000}" rec_4p="${BENCH_RECORDS_4P:-25000}"
native_s="${BENCH_NATIVE_SECONDS:-3}" skip_pp="${BENCH_SKIP_PP:-0}" out="${BENCH_OUT:-/dev/null}"
work="$(mktemp -d /tmp/ketch-produce-rows.XXXXXX)"
export KAFKA_REF_RUN="$work/kafka" KAFKA_EXTRA_PROPERTIES="$work/kafka-extra.properties"
echo "log.flush.scheduler.interval.ms=1000" >"$KAFKA_EXTRA_PROPERTIES"  # as bench/run.sh
say() { printf '[rows %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

declare -A pid boot
cleanup() {
  set +e
  for n in "${!pid[@]}"; do [[ $n == kafka ]] || kill "${pid[$n]}" 2>/dev/null; done
  "$kafka_sh" stop >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT

(cd "$here/driver" && go build -o "$work/bench-driver" .)
drv="$work/bench-driver"
names=()
for a in "$@"; do
  n="${a%%=*}" b="${a#*=}"
  mkdir -p "$work/$n"; cp "$b" "$work/$n/ketch"
  port=$(( 30000 + RANDOM % 20000 ))
  "$work/$n/ketch" --listen "127.0.0.1:$port" --data-dir "$work/$n/data" --log-level warn \
    --schema-registry=false --console=false 2>"$work/$n/log" &
  pid[$n]=$! boot[$n]="127.0.0.1:$port" names+=("$n")
done
boot[kafka]="$("$kafka_sh" start)"; pid[kafka]="$(cat "$KAFKA_REF_RUN/kafka.pid")"; names+=(kafka)
for n in "${names[@]}"; do  # every broker answers before the first round
  for _ in $(seq 100); do "$drv" create-topic "${boot[$n]}" ready 1 >/dev/null 2>&1 && break; sleep 0.1; done
done

ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
steal() { awk 'NR == 1 { print $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }
emit() { echo "$1" | tee -a "$out"; }
# step NAME ROW ROUND BYTES CPU0 STEAL0 ALL0 MIB_S [EXTRA_JSON]
step() {
  local s1 a1; read -r s1 a1 < <(steal)
  emit "$(printf '{"broker":"%s","row":"%s","round":%s,"mib_s":%s,"cpu_ms_per_mib":%s,"steal_pct":%s%s}' \
    "$1" "$2" "$3" "$8" "$(awk -v d=$(( $(ticks "${pid[$1]}") - $5 )) -v b="$4" 'BEGIN { printf "%.2f", d * 10 / (b / 1048576) }')" \
    "$(awk -v s=$((s1 - $6)) -v a=$((a1 - $7)) 'BEGIN { printf "%.2f", a ? 100 * s / a : 0 }')" "${9:-}")"
}
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
  order=("${names[@]}")
  (( r % 2 )) || order=($(printf '%s\n' "${names[@]}" | tac))
  say "round $r: ${order[*]}"
  for n in "${order[@]}"; do
    native "$n" "$r"
    if [[ "$skip_pp" != 1 ]]; then pp "$n" "$r" 1 "$rec_1p" produce_1p; pp "$n" "$r" 4 "$rec_4p" produce_4p; fi
  done
done
