#!/usr/bin/env bash
# bench/run.sh — ketch against Apache Kafka 4.3.1 in the same run, and against the machine.
#
#   bench/run.sh            (or `make bench`)  prints a table, writes bench/results/<date>.json
#
# Steps: (1) machine limits: loopback TCP (the best of 1 and 2 connections, 256 KiB and 1 MiB
# writes), loopback TCP whose receivers write what they read to a file (receive+store: the least
# work of any broker taking a produce; measured again just before each raw produce, since on a VM
# whose free memory goes back to the host, new page-cache pages cost a host fault each), the same
# stored as a broker stores a produce (one batch per append, a file per partition, synced every
# second: the ceiling of the raw produce for any broker with Kafka's log layout), and
# loopback TCP whose senders sendfile a file in the page cache (page cache to socket: the least
# work of any broker answering a fetch), write+fdatasync bandwidth (64 KiB, 1 MiB and 16 MiB per
# fdatasync) in the data
# dirs' file system; (2) start-up to the first ApiVersions answer, and idle RSS; (3) throughput
# with Kafka's own ProducerPerformance / ConsumerPerformance against both brokers, and broker
# CPU per MiB; (4) produce-to-consume latency at a fixed rate (bench/driver, franz-go);
# (5) ratios, done by bench/report.py.
# Besides Kafka's JVM perf tools, the same figures are taken with franz-go (bench/driver) and kcat
# (librdkafka, bench/kcat.sh): on a 2-core machine the JVM clients, not the brokers, are often the limit.
# A raw wire client (bench/tools/rawwire.c: requests built once, written again and again, or
# fetched and discarded) costs about what the loopback tool costs, so its figures show the
# broker's own ceiling against loopback.
# Both brokers are private to the run (own data dirs, own ports) and stopped at the end.
#
# Environment (defaults in brackets; durations are record counts for the Kafka perf tools):
#   KETCH_BIN [build/ketch]   broker binary (copied into the work dir so a rebuild cannot swap it)
#   BENCH_WORK [mktemp]        work dir: broker data, tools; deleted at the end unless BENCH_KEEP=1
#   BENCH_REPEATS [3]          throughput repeats (the table shows medians)
#   BENCH_JVM8_REPEATS [1]     of those, how many include the 8-JVM acks=all step (slow: 8 JVMs
#                              starting on 2 cores take most of a minute)
#   BENCH_KETCH_STARTS [20]    BENCH_KAFKA_STARTS [3] start-up repeats (Kafka: after one format)
#   BENCH_RECORDS_1P [100000]  BENCH_RECORDS_4P [25000]  BENCH_RECORDS_ALL [10000] per producer
#   BENCH_NATIVE_SECONDS [3]   duration of each franz-go (native client) produce step
#   BENCH_KCAT_RECORDS [100000] records librdkafka (kcat) produces, then consumes (bench/kcat.sh)
#   BENCH_RAW_MIB [512]        MiB produced, then fetched, per raw wire connection per round
#   BENCH_RAW_CONNS [2]        raw wire connections at once (one process each)
#   BENCH_RECORD_SIZE [1024]   BENCH_PARTITIONS [6]   BENCH_LIMIT_SECONDS [3]
#   BENCH_LAT_RATE_MIB [10]    BENCH_LAT_SECONDS [8] BENCH_LAT_WARMUP_S [2]
#   BENCH_LAT_REPEATS [3]      latency repeats (the table shows medians)
#   BENCH_KETCH_ARGS []        extra ketch flags (e.g. "--reactors 1")
#   BENCH_SKIP_KAFKA [0]       1: ketch only (no ratios to Kafka)
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"; . "$here/kcat.sh"
repeats="${BENCH_REPEATS:-3}"
jvm8_repeats="${BENCH_JVM8_REPEATS:-1}"
ketch_starts="${BENCH_KETCH_STARTS:-20}"
kafka_starts="${BENCH_KAFKA_STARTS:-3}"
rec_1p="${BENCH_RECORDS_1P:-100000}"
rec_4p="${BENCH_RECORDS_4P:-25000}"
rec_all="${BENCH_RECORDS_ALL:-10000}"
rsize="${BENCH_RECORD_SIZE:-1024}"
parts="${BENCH_PARTITIONS:-6}"
limit_s="${BENCH_LIMIT_SECONDS:-3}"
lat_rate="${BENCH_LAT_RATE_MIB:-10}"
lat_s="${BENCH_LAT_SECONDS:-8}"
native_s="${BENCH_NATIVE_SECONDS:-3}"
raw_mib="${BENCH_RAW_MIB:-512}"
raw_conns="${BENCH_RAW_CONNS:-2}"
lat_warm="${BENCH_LAT_WARMUP_S:-2}"
lat_repeats="${BENCH_LAT_REPEATS:-3}"
skip_kafka="${BENCH_SKIP_KAFKA:-0}"
read -r -a ketch_extra <<<"${BENCH_KETCH_ARGS:-}"

t_start=$(date +%s); load_start="$(cut -d" " -f1-3 /proc/loadavg)"
pct() { awk -v n="$1" -v d="$2" 'BEGIN { printf "%.2f", d ? 100 * n / d : 0 }'; }  # pct PART WHOLE
read -r steal_start all_start < <(cpu_steal)
bench_init bench  # $m: one JSON object per measurement; report.py reads it
export KAFKA_REF_RUN="$work/kafka"  # our own reference broker, not the shared one
# Kafka checks flush.ms only every log.flush.scheduler.interval.ms (default: never); once a
# second lets a topic with flush.ms=1000 sync as ketch's --flush-ms does. Topics without
# flush.ms (Kafka's default, Long.MAX) are not affected.
export KAFKA_EXTRA_PROPERTIES="$work/kafka-extra.properties"
echo "log.flush.scheduler.interval.ms=1000" >"$KAFKA_EXTRA_PROPERTIES"

# record KEY BROKER VALUE [UNIT]
record() { printf '{"key":"%s","broker":"%s","value":%s,"unit":"%s"}\n' "$1" "$2" "$3" "${4:-}" >>"$m"; }

ketch_pid=""
cleanup() {
  set +e
  [[ -n "$ketch_pid" ]] && stop_ketch
  [[ "$skip_kafka" == 1 ]] || "$kafka_sh" stop >/dev/null 2>&1
  remove_work
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- tools
build_tools loopback disksync startprobe rawwire
[[ "$skip_kafka" == 1 ]] || "$kafka_sh" fetch
raw_batch=16  # records per raw wire batch (Kafka's default batch.size holds 16 records of 1 KiB)
raw_batch_bytes="$("$work/bin/rawwire" batch-bytes "$rsize" "$raw_batch")"

# ---------------------------------------------------------------- 1. machine limits
# Measured at the start and again at the end of the run; the report takes the best of the two
# (other load on the machine can only lower a limit).
# store_limit CONNECTIONS: loopback TCP into files in the data dirs' file system: 256 KiB writes
# into one file per receiver, no fsync (store_mib_s); and as a broker stores the raw produce
# (store_broker_mib_s): appends of one raw wire batch (raw_batch_bytes) to BENCH_PARTITIONS
# files in turn, each synced every second beside the receive loop (ketch's default --flush-ms).
store_limit() {
  record store_mib_s machine "$("$work/bin/loopback" -c "$1" -w "$work" "$limit_s" 262144)" MiB/s
  record store_broker_mib_s machine "$("$work/bin/loopback" -c "$1" -w "$work" \
    -p "$parts:$raw_batch_bytes:1000" "$limit_s" 262144)" MiB/s
}
limits() {
  say "machine limits (${limit_s}s each)"
  local bw sps
  local c w
  for c in 1 2; do
    for w in 262144 1048576; do record loopback_mib_s machine "$("$work/bin/loopback" -c "$c" "$limit_s" "$w")" MiB/s; done
    store_limit "$c"
    record sendfile_mib_s machine "$("$work/bin/loopback" -c "$c" -s "$work" "$limit_s" 262144)" MiB/s
  done
  read -r bw sps < <("$work/bin/disksync" "$work" 1048576 "$limit_s")
  record fdatasync_1m_mib_s machine "$bw" MiB/s; record fdatasync_1m_syncs_s machine "$sps" 1/s
  read -r bw sps < <("$work/bin/disksync" "$work" 65536 "$limit_s")
  record fdatasync_64k_mib_s machine "$bw" MiB/s; record fdatasync_64k_syncs_s machine "$sps" 1/s
  # group commit syncs several MiB at once: the durable sequential bandwidth acks=all can reach
  read -r bw sps < <("$work/bin/disksync" "$work" 16777216 "$limit_s")
  record fdatasync_16m_mib_s machine "$bw" MiB/s; record fdatasync_16m_syncs_s machine "$sps" 1/s
}
limits

# ---------------------------------------------------------------- 2. start-up, idle RSS
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
stop_ketch() { kill "$ketch_pid" 2>/dev/null; wait_gone "$ketch_pid" 60; ketch_pid=""; }

# start_ketch: a fresh, empty data dir each time; sets ketch_pid, ketch_boot, start_ms.
start_ketch() {
  rm -rf "$work/ketch-data"
  local out port
  out="$("$work/bin/startprobe" --timeout-s 30 -- "$work/bin/ketch" --listen '127.0.0.1:{PORT}' \
        --data-dir "$work/ketch-data" --log-level warn "${ketch_extra[@]}" 2>>"$work/logs/ketch.log")" ||
    die "ketch did not start (log: $work/logs/ketch.log)"
  read -r start_ms port ketch_pid <<<"$out"
  ketch_boot="127.0.0.1:$port"
}

say "ketch start-up x$ketch_starts"
for i in $(seq 1 "$ketch_starts"); do
  start_ketch
  record startup_ms ketch "$start_ms" ms
  (( i < ketch_starts )) && stop_ketch
done
sleep 1  # idle RSS: the last instance, one second after it answered; it serves the benchmarks
record idle_rss_mib ketch "$(awk -v k="$(rss_kib "$ketch_pid")" 'BEGIN { printf "%.1f", k / 1024 }')" MiB

kafka_boot=""
if [[ "$skip_kafka" != 1 ]]; then
  # Start-up of the JVM broker, measured from the exec of kafka.sh start (a few ms of bash)
  # to the first ApiVersions answer. The first start formats the storage (reported apart).
  "$kafka_sh" clean >/dev/null
  kafka_start() {  # kafka_start [PORT]: sets start_ms, kport
    local out pid
    out="$("$work/bin/startprobe" --timeout-s 300 ${1:+--port "$1"} -- "$kafka_sh" start --port '{PORT}' \
           2>>"$work/logs/kafka-start.log")" || die "reference Kafka did not start (log: $work/logs/kafka-start.log)"
    read -r start_ms kport pid <<<"$out"
    wait_gone "$pid" 60  # kafka.sh itself returns once the broker logged "started"
    "$kafka_sh" status >/dev/null || die "reference Kafka not running after start"
  }
  say "Kafka start-up: 1 with storage format + $kafka_starts without"
  kafka_start
  record startup_with_format_ms kafka "$start_ms" ms
  for i in $(seq 1 "$kafka_starts"); do
    "$kafka_sh" stop >/dev/null
    kafka_start "$kport"
    record startup_ms kafka "$start_ms" ms
  done
  sleep 1
  record idle_rss_mib kafka "$(awk -v k="$(rss_kib "$(cat "$KAFKA_REF_RUN/kafka.pid")")" 'BEGIN { printf "%.1f", k / 1024 }')" MiB
  kafka_boot="$("$kafka_sh" bootstrap)"
fi

# ---------------------------------------------------------------- 3. throughput
clk_tck="$(getconf CLK_TCK)"
# broker_pid BROKER / cpu_ticks PID: user+system CPU of a broker, to report CPU per MiB moved
# (less sensitive to other load on the machine than MiB/s).
broker_pid() { if [[ "$1" == ketch ]]; then echo "$ketch_pid"; else cat "$KAFKA_REF_RUN/kafka.pid"; fi; }
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
# record_cpu KEY BROKER TICKS_BEFORE BYTES: records KEY = broker CPU ms per MiB since TICKS_BEFORE.
record_cpu() {
  local now; now="$(cpu_ticks "$(broker_pid "$2")")"
  record "$1" "$2" "$(awk -v d=$((now - $3)) -v hz="$clk_tck" -v b="$4" 'BEGIN { printf "%.2f", d * 1000 / hz / (b / 1048576) }')" ms/MiB
}
kafka_tool() { local c="$1"; shift; "$kafka_sh" tools "org.apache.kafka.tools.$c" "$@"; }

# produce BROKER BOOT TOPIC PROCS RECORDS ACKS KEY: PROCS ProducerPerformance processes at once.
# Each output line is stamped with the wall clock when it appeared. A process's send window is
# [stamp of its summary - records/rate, stamp of its summary]; the figure KEY is all bytes over
# the span from the earliest window start to the latest window end (JVMs start at different
# times on 2 cores; this does not count a producer's rate while others had not started yet as
# if they overlapped). KEY_sum is the sum of the rates each process reports. Kafka's "MB" is
# 2^20 bytes.
produce() {
  local broker="$1" boot="$2" topic="$3" procs="$4" n="$5" acks="$6" key="$7" i pids=()
  local base="$work/logs/$key-$broker-$topic" cpu0
  cpu0="$(cpu_ticks "$(broker_pid "$broker")")"
  for i in $(seq 1 "$procs"); do
    ( kafka_tool ProducerPerformance --bootstrap-server "$boot" --topic "$topic" --num-records "$n" \
        --record-size "$rsize" --throughput -1 --command-property "acks=$acks" 2>&1 |
      while IFS= read -r l; do printf '%s %s\n' "$(date +%s.%N)" "$l"; done ) >"$base-$i.out" &
    pids+=($!)
  done
  for i in "${pids[@]}"; do wait "$i" || die "ProducerPerformance failed: $base-*.out"; done
  local agg
  agg="$(cat "$base"-*.out | awk -v n="$n" -v size="$rsize" '
    $2 == n && $3 == "records" && $4 == "sent," {
      rps = $5 + 0; end = $1 + 0; start = end - n / rps
      if (cnt == 0 || start < lo) lo = start
      if (cnt == 0 || end > hi) hi = end
      sum += rps * size / 1048576; cnt++
    }
    END { if (cnt) printf "%d %.2f %.2f\n", cnt, cnt * n * size / 1048576 / (hi - lo), sum }')"
  local cnt union sum; read -r cnt union sum <<<"$agg"
  [[ "${cnt:-0}" == "$procs" ]] || die "missing ProducerPerformance summaries in $base-*.out"
  record "$key" "$broker" "$union" MiB/s
  record "${key}_sum" "$broker" "$sum" MiB/s
  record_cpu "cpu_$key" "$broker" "$cpu0" $((procs * n * rsize))
}

consumer_perf_ok=(ketch kafka)  # brokers ConsumerPerformance still runs against
# consume BROKER BOOT TOPIC RECORDS: ConsumerPerformance (group) fetch rate, and group-less franz-go.
consume() {
  local broker="$1" boot="$2" topic="$3" n="$4" out cpu0
  cpu0="$(cpu_ticks "$(broker_pid "$broker")")"
  if [[ " ${consumer_perf_ok[*]} " == *" $broker "* ]]; then
    kafka_tool ConsumerPerformance --bootstrap-server "$boot" --topic "$topic" --num-records "$n" \
      --timeout 10000 --group "bench-$topic" >"$work/logs/consume-$broker-$topic.out" 2>&1 || true
    # fields: ..., data.consumed.in.nMsg (5), ..., fetch.MB.sec (9)
    out="$(awk -F', ' -v n="$n" 'NF >= 10 && $5 == n { print $9 }' "$work/logs/consume-$broker-$topic.out" | tail -n 1)"
    if [[ -n "$out" ]]; then
      record consume_perf_mib_s "$broker" "$out" MiB/s
      record_cpu cpu_consume_perf "$broker" "$cpu0" $((n * rsize))
    else
      say "ConsumerPerformance did not consume $n records from $broker (see $work/logs/consume-$broker-$topic.out); skipping it there"
      record consume_perf_failed "$broker" 1
      consumer_perf_ok=("${consumer_perf_ok[@]/$broker}")
    fi
  fi
  # The topic is read in a fraction of a second: three passes, each a sample.
  local pass
  for pass in 1 2 3; do
    cpu0="$(cpu_ticks "$(broker_pid "$broker")")"
    out="$("$drv" consume "$boot" "$topic" "$n")" || die "bench-driver consume failed on $broker"
    record consume_direct_mib_s "$broker" "$(jget "$out" mib_s)" MiB/s
    record_cpu cpu_consume_direct "$broker" "$cpu0" "$(jget "$out" bytes)"
  done
}

# native BROKER BOOT TOPIC CLIENTS ACKS KEY: franz-go clients in one process for native_s seconds.
native() {
  local out cpu0
  cpu0="$(cpu_ticks "$(broker_pid "$1")")"
  out="$("$drv" produce "$2" "$3" --clients "$4" --acks "$5" --seconds "$native_s" --record-size "$rsize")" ||
    die "bench-driver produce failed on $1"
  record "$6" "$1" "$(jget "$out" mib_s)" MiB/s
  record_cpu "cpu_$6" "$1" "$cpu0" "$(jget "$out" bytes)"
}

# raw BROKER BOOT TOPIC produce|fetch KEY: the raw wire client, raw_mib MiB over each of
# raw_conns connections (produce: acks=1, raw_batch records of rsize per batch, one batch per partition
# per request; fetch: every partition from offset 0, so each connection reads what one wrote).
raw() {
  local out cpu0 mib bytes
  cpu0="$(cpu_ticks "$(broker_pid "$1")")"
  out="$("$work/bin/rawwire" -c "$raw_conns" "$4" "${2%:*}" "${2##*:}" "$3" "$parts" "$raw_mib" \
         $([[ $4 == produce ]] && echo "$rsize $raw_batch"))" || die "rawwire $4 failed on $1"
  read -r mib bytes <<<"$out"
  record "$5" "$1" "$mib" MiB/s
  record_cpu "cpu_$5" "$1" "$cpu0" "$bytes"
}

# raw_round BROKER BOOT TOPIC [CONFIG...]: the raw wire produce into a fresh TOPIC, then three
# fetches of it (a fetch of 1 GiB takes about half a second: three per round steady the median).
raw_round() {
  "$drv" create-topic "$2" "$3" "$parts" "${@:4}" >/dev/null
  raw "$1" "$2" "$3" produce raw_produce_mib_s
  for _ in 1 2 3; do raw "$1" "$2" "$3" fetch raw_fetch_mib_s; done
  "$drv" delete-topic "$2" "$3" >/dev/null
}

# one_round BROKER BOOT R: every throughput figure once, on fresh topics, deleted afterwards.
one_round() {
  local b="$1" boot="$2" r="$3" t="bench-r$3"
  say "round $r: $b produce acks=1, 1 producer x $rec_1p"
  "$drv" create-topic "$boot" "$t-p1" "$parts" >/dev/null
  produce "$b" "$boot" "$t-p1" 1 "$rec_1p" 1 produce_1p_mib_s
  "$drv" delete-topic "$boot" "$t-p1" >/dev/null
  say "round $r: $b produce acks=1, 4 producers x $rec_4p"
  "$drv" create-topic "$boot" "$t-p4" "$parts" >/dev/null
  produce "$b" "$boot" "$t-p4" 4 "$rec_4p" 1 produce_4p_mib_s
  say "round $r: $b consume $((4 * rec_4p)) records"
  consume "$b" "$boot" "$t-p4" $((4 * rec_4p))
  "$drv" delete-topic "$boot" "$t-p4" >/dev/null
  if (( r <= jvm8_repeats )); then
    say "round $r: $b produce acks=all, 8 producers x $rec_all"
    "$drv" create-topic "$boot" "$t-all" "$parts" >/dev/null
    produce "$b" "$boot" "$t-all" 8 "$rec_all" all acks_all_8p_mib_s
    "$drv" delete-topic "$boot" "$t-all" >/dev/null
  fi
  say "round $r: $b franz-go produce ${native_s}s: 4 clients acks=1, 8 clients acks=all"
  "$drv" create-topic "$boot" "$t-n1" "$parts" >/dev/null
  native "$b" "$boot" "$t-n1" 4 1 native_4c_mib_s
  "$drv" delete-topic "$boot" "$t-n1" >/dev/null
  say "round $r: $b librdkafka (kcat) acks=1: produce, then consume"; kcat_round "$b" "$boot" "$t-kcat"
  say "round $r: $b raw wire client, $raw_conns connections: produce, then fetch ${raw_mib} MiB each"
  store_limit "$raw_conns"
  raw_round "$b" "$boot" "$t-raw"
  "$drv" create-topic "$boot" "$t-nall" "$parts" >/dev/null
  native "$b" "$boot" "$t-nall" 8 all native_all_8c_mib_s
  "$drv" delete-topic "$boot" "$t-nall" >/dev/null
  if [[ "$b" == kafka ]]; then  # Kafka with an fsync per append, like ketch's acks=all
    say "round $r: kafka acks=all with flush.messages=1 (fsync per append)"
    if (( r <= jvm8_repeats )); then
      "$drv" create-topic "$boot" "$t-allf" "$parts" flush.messages=1 >/dev/null
      produce kafka_fsync "$boot" "$t-allf" 8 "$rec_all" all acks_all_8p_mib_s
      "$drv" delete-topic "$boot" "$t-allf" >/dev/null
    fi
    "$drv" create-topic "$boot" "$t-nallf" "$parts" flush.messages=1 >/dev/null
    native kafka_fsync "$boot" "$t-nallf" 8 all native_all_8c_mib_s
    "$drv" delete-topic "$boot" "$t-nallf" >/dev/null
    # ketch syncs acks=1 data every --flush-ms (1000 ms), while the produced GiB is being
    # fetched; Kafka's default never does. Kafka flushed every second (flush.ms=1000) is the
    # one of comparable durability.
    say "round $r: kafka raw wire client again, flush.ms=1000 (a sync a second, as ketch's --flush-ms)"
    raw_round kafka_flush1s "$boot" "$t-rawf" flush.ms=1000
  fi
}

# in_turn STEPS R: runs STEPS_ketch and STEPS_kafka (each given R), ketch first in odd rounds and
# Kafka first in even ones, so neither broker always follows the other on the machine; ketch only
# with BENCH_SKIP_KAFKA=1.
in_turn() {
  if [[ "$skip_kafka" == 1 ]]; then "$1_ketch" "$2"
  elif (( $2 % 2 )); then "$1_ketch" "$2"; "$1_kafka" "$2"
  else "$1_kafka" "$2"; "$1_ketch" "$2"; fi
}
round_ketch() { one_round ketch "$ketch_boot" "$1"; }
round_kafka() { one_round kafka "$kafka_boot" "$1"; }
for r in $(seq 1 "$repeats"); do in_turn round "$r"; done

# ---------------------------------------------------------------- 4. latency
# latency BROKER BOOT ACKS KEY [TOPIC CONFIG...]: franz-go (bench/driver) produces and consumes;
# a KEY starting lat_raw takes the raw wire client instead (rawwire latency: one C process, a
# batch of 4 records per produce request, long-poll fetches), whose own cost is far below the
# Go runtime's, so its figures show what the broker adds.
latency() {
  local b="$1" boot="$2" acks="$3" key="$4" t="bench-lat-$4-$1" out f steal0 all0 steal1 all1
  "$drv" create-topic "$boot" "$t" "$parts" "${@:5}" >/dev/null
  say "latency: $b acks=$acks at $lat_rate MiB/s for ${lat_s}s ${*:5}$([[ $key == lat_raw* ]] && echo " (raw wire)")"
  read -r steal0 all0 < <(cpu_steal)
  if [[ $key == lat_raw* ]]; then
    out="$("$work/bin/rawwire" latency "${boot%:*}" "${boot##*:}" "$t" "$parts" "$lat_s" "$lat_rate" "$rsize" 4 \
           "$lat_warm" "$([[ $acks == all ]] && echo -1 || echo "$acks")")" || die "rawwire latency failed on $b"
  else
    out="$("$drv" latency "$boot" "$t" --rate-mib "$lat_rate" --record-size "$rsize" \
           --seconds "$lat_s" --warmup-s "$lat_warm" --acks "$acks")" || die "latency driver failed on $b"
  fi
  read -r steal1 all1 < <(cpu_steal)
  record "${key}_steal_pct" "$b" "$(pct $((steal1 - steal0)) $((all1 - all0)))" %
  echo "$out" >>"$work/logs/latency-$key-$b.json"
  for f in p50_ms p99_ms p999_ms max_ms ack_p50_ms ack_p99_ms achieved_mib_s; do
    record "${key}_$f" "$b" "$(jget "$out" "$f")" \
      "$([[ $f == *_ms ]] && echo ms || echo MiB/s)"
  done
  "$drv" delete-topic "$boot" "$t" >/dev/null
}
latency_ketch() {
  latency ketch "$ketch_boot" 1 lat_acks1
  latency ketch "$ketch_boot" 1 lat_raw_acks1
  latency ketch "$ketch_boot" all lat_acksall
}
latency_kafka() {
  latency kafka "$kafka_boot" 1 lat_acks1
  latency kafka "$kafka_boot" 1 lat_raw_acks1
  latency kafka "$kafka_boot" all lat_acksall
  latency kafka_fsync "$kafka_boot" all lat_acksall flush.messages=1
}
# A host that takes CPU from the VM for a few ms moves a p99 more than anything a broker does:
# the latency steps run lat_repeats times, the brokers' order alternating, and the table shows
# medians (each run's figures and CPU steal are listed under the table).
for r in $(seq 1 "$lat_repeats"); do in_turn latency "$r"; done

limits

# ---------------------------------------------------------------- 5. report
mkdir -p "$here/results"
read -r steal_end all_end < <(cpu_steal)
out_json="$here/results/$(date -u +%Y-%m-%dT%H%MZ).json"
python3 "$here/report.py" "$m" "$out_json" \
  --meta "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)" "commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)" \
  "cores=$(nproc)" "load_at_start=$load_start" "load_at_end=$(cut -d' ' -f1-3 /proc/loadavg)" "kernel=$(uname -r)" \
  "record_size=$rsize" "partitions=$parts" "repeats=$repeats" "latency_repeats=$lat_repeats" "ketch_bin=$ketch_bin" \
  "ketch_args=${BENCH_KETCH_ARGS:-}" "latency_rate_mib_s=$lat_rate" \
  "steal_pct=$(pct $((steal_end - steal_start)) $((all_end - all_start)))" "run_seconds=$(( $(date +%s) - t_start ))" \
  "records=1p:$rec_1p 4p:$rec_4p all:$rec_all native_s:$native_s latency_s:$lat_s raw:${raw_conns}x${raw_mib}MiB"
say "results: $out_json"
