#!/usr/bin/env bash
# `ketch produce` / `ketch consume` beside kcat on the same topic (MiB/s), and
# the start-to-first-byte time of `ketch topic list`
# (docs/cli.md; issue 21's goal: throughput >= kcat's, a start >= 50x faster
# than kafka-topics.sh's JVM).
#
#   bench/cli_bench.sh [-b host:port] [RECORDS] [VALUE_BYTES]
#
# Without -b it starts a ketch of its own (build/ketch) on a free port in a
# temporary directory. Kafka's console tools are timed too when KAFKA_TOOLS=1
# (conformance/reference/kafka.sh tools, which needs its jars).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ketch="${KETCH_BIN:-$root/build/ketch}"
bootstrap=""
if [[ "${1:-}" == "-b" ]]; then bootstrap="$2"; shift 2; fi
records="${1:-200000}"
value_bytes="${2:-100}"
work="$(mktemp -d)"
pid=""
cleanup() { [[ -n "$pid" ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

if [[ -z "$bootstrap" ]]; then
  "$ketch" --listen 127.0.0.1:0 --data-dir "$work/data" --ready-file "$work/ready" --log-level warn \
    >"$work/ketch.log" 2>&1 &
  pid=$!
  for _ in $(seq 300); do [[ -s "$work/ready" ]] && break; sleep 0.02; done
  bootstrap="$(cat "$work/ready")"
fi
echo "broker $bootstrap, $records records of $value_bytes bytes"

python3 -c "
import sys
v = 'x' * $value_bytes
sys.stdout.write(''.join('%08d%s\n' % (i, v[8:]) for i in range($records)))" >"$work/input"
mib=$(python3 -c "print(round($(stat -c %s "$work/input") / 1048576, 1))")

now_ms() { date +%s%3N; }
rate() {  # name start end
  python3 -c "import sys; d=($3-$2)/1000; print('%-28s %7.2f s  %8.1f MiB/s' % ('$1', d, $mib/d if d else 0))"
}

"$ketch" topic create bench-ketch bench-kcat -p 1 -b "$bootstrap" >/dev/null
t0=$(now_ms); "$ketch" produce bench-ketch -b "$bootstrap" <"$work/input"; t1=$(now_ms); rate "ketch produce" "$t0" "$t1"
if command -v kcat >/dev/null; then
  t0=$(now_ms); kcat -P -b "$bootstrap" -t bench-kcat -p 0 -X enable.idempotence=true <"$work/input"; t1=$(now_ms)
  rate "kcat -P" "$t0" "$t1"
fi
t0=$(now_ms); n=$("$ketch" consume bench-ketch -b "$bootstrap" -o beginning -e | wc -l); t1=$(now_ms)
rate "ketch consume ($n)" "$t0" "$t1"
if command -v kcat >/dev/null; then
  t0=$(now_ms); n=$(kcat -C -b "$bootstrap" -t bench-ketch -o beginning -e -q | wc -l); t1=$(now_ms)
  rate "kcat -C ($n)" "$t0" "$t1"
fi

best=999999
for _ in $(seq 10); do
  t0=$(date +%s%N); "$ketch" topic list -b "$bootstrap" | head -c1 >/dev/null; t1=$(date +%s%N)
  d=$(( (t1 - t0) / 1000 )); (( d < best )) && best=$d
done
echo "ketch topic list: first byte after $best us (best of 10)"
if [[ "${KAFKA_TOOLS:-0}" == 1 ]]; then
  t0=$(date +%s%N)
  "$root/conformance/reference/kafka.sh" tools org.apache.kafka.tools.TopicCommand --bootstrap-server "$bootstrap" --list \
    | head -c1 >/dev/null
  t1=$(date +%s%N)
  echo "kafka-topics --list: first byte after $(( (t1 - t0) / 1000 )) us"
fi
