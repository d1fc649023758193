#!/usr/bin/env bash
# `ketch produce` / `ketch consume` beside kcat and Kafka's console tools
# (ConsoleProducer, ConsoleConsumer) on the same topic (MiB/s), and the
# start-to-first-byte time of `ketch topic list` beside `kafka-topics --list`
# (docs/cli.md; issue 21's goal: throughput >= kcat's, a start >= 50x faster
# than kafka-topics' JVM).
#
#   bench/cli_bench.sh [-b host:port] [RECORDS] [VALUE_BYTES]
#
# REPEATS=N (default 3) runs every row N times and prints the medians (the
# machines are shared and noisy; the load average is printed with them).
# Without -b it starts a ketch of its own (build/ketch) on a free port in a
# temporary directory. KAFKA_TOOLS=1 adds Kafka's console tools (the jars of
# conformance/reference/kafka.sh); KAFKA_REF=1 also runs every row against the
# reference Kafka 4.3.1 (started with kafka.sh if it is not running), so the
# clients are compared on both brokers in one run.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ketch="${KETCH_BIN:-$root/build/ketch}"
kafka_sh="$root/conformance/reference/kafka.sh"
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

python3 -c "
import sys
v = 'x' * $value_bytes
sys.stdout.write(''.join('%08d%s\n' % (i, v[8:]) for i in range($records)))" >"$work/input"
mib=$(python3 -c "print(round($(stat -c %s "$work/input") / 1048576, 1))")
echo "$records records of $value_bytes bytes ($mib MiB); load: $(cut -d' ' -f1-3 /proc/loadavg)"

now_ms() { date +%s%3N; }
broker_name=""
rate() {  # name start end
  echo "$broker_name|$1|$(( $3 - $2 ))" >>"$work/times"
}
records_read() {  # tool count
  [[ "$2" == "$records" ]] || echo "  warning: $1 read $2 of $records records" >&2
}
tools() { "$kafka_sh" tools "$@"; }
with_tools() { [[ "${KAFKA_TOOLS:-0}" == 1 || "${KAFKA_REF:-0}" == 1 ]]; }

rows() {  # bootstrap broker-name
  local b="$1" n t0 t1 run
  run="$(date +%s%N)"
  broker_name="$2"
  "$ketch" topic create "bench-ketch-$run" "bench-kcat-$run" "bench-console-$run" -p 1 -b "$b" >/dev/null
  t0=$(now_ms); "$ketch" produce "bench-ketch-$run" -b "$b" <"$work/input"; t1=$(now_ms)
  rate "ketch produce" "$t0" "$t1"
  if command -v kcat >/dev/null; then
    t0=$(now_ms); kcat -P -b "$b" -t "bench-kcat-$run" -p 0 -X enable.idempotence=true <"$work/input"; t1=$(now_ms)
    rate "kcat -P" "$t0" "$t1"
  fi
  if with_tools; then
    t0=$(now_ms)
    tools org.apache.kafka.tools.ConsoleProducer --bootstrap-server "$b" --topic "bench-console-$run" \
      --producer-property acks=all <"$work/input" >/dev/null
    t1=$(now_ms); rate "kafka-console-producer" "$t0" "$t1"
  fi
  t0=$(now_ms); n=$("$ketch" consume "bench-ketch-$run" -b "$b" -o beginning -e | wc -l); t1=$(now_ms)
  rate "ketch consume" "$t0" "$t1"; records_read "ketch consume" "$n"
  if command -v kcat >/dev/null; then
    t0=$(now_ms); n=$(kcat -C -b "$b" -t "bench-ketch-$run" -o beginning -e -q | wc -l); t1=$(now_ms)
    rate "kcat -C" "$t0" "$t1"; records_read "kcat -C" "$n"
  fi
  if with_tools; then
    t0=$(now_ms)
    n=$(tools org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$b" --topic "bench-ketch-$run" \
      --from-beginning --max-messages "$records" --timeout-ms 30000 2>/dev/null | wc -l)
    t1=$(now_ms); rate "kafka-console-consumer" "$t0" "$t1"; records_read "kafka-console-consumer" "$n"
  fi
  local best=999999 d
  for _ in $(seq 10); do
    t0=$(date +%s%N); "$ketch" topic list -b "$b" | head -c1 >/dev/null; t1=$(date +%s%N)
    d=$(( (t1 - t0) / 1000 )); (( d < best )) && best=$d
  done
  echo "$broker_name|ketch topic list|$best" >>"$work/starts"
  if with_tools; then
    best=999999999
    for _ in 1 2 3; do
      t0=$(date +%s%N)
      tools org.apache.kafka.tools.TopicCommand --bootstrap-server "$b" --list | head -c1 >/dev/null
      t1=$(date +%s%N)
      d=$(( (t1 - t0) / 1000 )); (( d < best )) && best=$d
    done
    echo "$broker_name|kafka-topics --list|$best" >>"$work/starts"
  fi
}

repeats="${REPEATS:-3}"
kafka_bootstrap=""
[[ "${KAFKA_REF:-0}" == 1 ]] && kafka_bootstrap="$("$kafka_sh" start)"
for _ in $(seq "$repeats"); do
  rows "$bootstrap" ketch
  [[ -n "$kafka_bootstrap" ]] && rows "$kafka_bootstrap" "Apache Kafka 4.3.1"
done
echo "medians of $repeats runs; load after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$work/times" "$work/starts" "$mib" <<'PY'
import statistics, sys
def table(path):
    rows = {}
    for line in open(path):
        broker, name, value = line.rstrip("\n").split("|")
        rows.setdefault(broker, {}).setdefault(name, []).append(int(value))
    return rows
starts = table(sys.argv[2])
for broker, tools in table(sys.argv[1]).items():
    print("broker", broker)
    for name, ms in tools.items():
        d = statistics.median(ms) / 1000
        print("  %-28s %7.2f s  %8.1f MiB/s" % (name, d, float(sys.argv[3]) / d if d else 0))
    for name, us in starts.get(broker, {}).items():  # best of 10 (ketch) or 3 (JVM) per run
        print("  %-28s first byte after %.1f ms" % (name, statistics.median(us) / 1000))
PY
