#!/usr/bin/env bash
# bench/librdkafka_rows.sh — the librdkafka rows (issue 24): kcat (Debian's, librdkafka 2.x)
# producing and consuming, for one or more ketch binaries beside the reference Kafka 4.3.1, in
# rounds whose order turns each round (a shared host drifts; ratios are taken within a round).
#
#   bench/librdkafka_rows.sh NAME=BINARY [NAME=BINARY ...]   e.g. main=build/ketch
#
# Rows, per broker and round, on a fresh topic of 6 partitions (deleted afterwards):
#   kcat_produce  kcat -P of BENCH_KCAT_RECORDS records of 1 KiB (a file of lines read from
#                 stdin; no key, so librdkafka's sticky partitioner spreads batches over the 6
#                 partitions), timed from the exec to kcat's exit (it flushes everything first)
#   kcat_consume  kcat -C -e -o beginning -q -d fetch of the same topic, output to /dev/null,
#                 timed to its exit (-e: at the end of every partition). librdkafka reports a
#                 partition's end only after a Fetch comes back empty, and a broker holds that
#                 Fetch for fetch.wait.max.ms (500 ms): every read ends with half a second of
#                 waiting, however much it read. So the step also records the rate to the last
#                 record librdkafka handed to kcat (to_last_mib_s; its "Enqueue N message(s)"
#                 debug lines, -d fetch: a line per Fetch answer), and the wait after it
#                 (end_wait_s); the records those lines count must be all of them. The same
#                 wait can come first: when the first partition whose start offset librdkafka
#                 learns is empty, that partition's Fetch is held alone for 500 ms (a small
#                 BENCH_KCAT_RECORDS can leave partitions empty; 200,000 did not)
#   kcat_produce_all  the produce again with acks=all (librdkafka's default) into another fresh
#                 topic: ketch syncs acks=all data before it answers (group commit); Kafka by
#                 default does not (flush.messages Long.MAX), so the row is against Kafka's default
# Properties set: acks=1 (acks=all in kcat_produce_all; librdkafka's default is acks=all, the
# other real-client rows are acks=1). Everything else is librdkafka's default: linger.ms 5, batch.size 1,000,000,
# batch.num.messages 10,000, no compression, no idempotence, fetch.max.bytes 50 MiB,
# fetch.wait.max.ms 500, queued.max.messages.kbytes 64 MiB. kcat is one process with one
# thread per broker connection plus its main thread.
# Each step records the rate, the broker's CPU per MiB and the CPU stolen by the host
# (bench/rowslib.sh), kcat's own CPU (bench/client_cost.py), and what share of one core kcat and
# the broker used over the step's wall time (client_core_pct, broker_core_pct; for the read also
# over the time to the last record, *_to_last): kcat near 100% with the broker well below says
# the row measures kcat, not the broker. After the produce, the
# topic's end offsets are summed (kcat -Q) and the step fails unless every record is there.
# The ratios NAME/kafka per round come last (bench/rows_summary.py). Output: JSON lines on stdout
# and in BENCH_OUT [bench/results/librdkafka-rows-<UTC time>.jsonl].
#
# Environment: BENCH_ROUNDS [3], BENCH_KCAT_RECORDS [100000], BENCH_RECORD_SIZE [1024].
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rounds="${BENCH_ROUNDS:-3}" n_rec="${BENCH_KCAT_RECORDS:-100000}" rsize="${BENCH_RECORD_SIZE:-1024}"
export BENCH_OUT="${BENCH_OUT:-$here/results/librdkafka-rows-$(date -u +%Y-%m-%dT%H%MZ).jsonl}"
command -v kcat >/dev/null || { echo "librdkafka_rows: kcat is not installed (deps/apt-test.txt)" >&2; exit 1; }
. "$here/rowslib.sh"
. "$here/kcat.sh"
rows_start librdkafka-rows "$@"
bytes=$((n_rec * rsize))
hz="$(getconf CLK_TCK)"

kcat_records "$work/records" "$n_rec" "$rsize"

now_s() { date +%s.%N; }
# kstep NAME ROW ROUND OUTFILE CMD...: runs CMD (stdin from the caller; stdout in OUTFILE, stderr
# in OUTFILE.err) timed, then records the step; with LAST=1, also the rate to the last record
# librdkafka handed to kcat (CMD must be a kcat -C -d fetch).
kstep() {
  local n="$1" row="$2" r="$3" f="$4" c0 s0 a0 t0 t1 cpu rate shares net="" got last c bt
  shift 4
  c0=$(ticks "${pid[$n]}"); read -r s0 a0 < <(steal)
  t0=$(now_s)
  cpu="$(python3 "$here/client_cost.py" "$f" "$@")" || die "$row failed on $n (see $f.err)"
  t1=$(now_s)
  rate="$(awk -v b="$bytes" -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%.2f", b / 1048576 / (t1 - t0) }')"
  c="$(echo "$cpu" | sed 's/.*"client_cpu_s":\([0-9.]*\).*/\1/')" bt=$(( $(ticks "${pid[$n]}") - c0 ))
  # share of one core over a span: share NAME SECONDS
  share() { awk -v c="$c" -v b="$bt" -v hz="$hz" -v w="$2" -v k="$1" \
    'BEGIN { printf ",\"%s_s\":%.3f,\"client_core_pct%s\":%.1f,\"broker_core_pct%s\":%.1f", k, w, k == "wall" ? "" : "_" k, 100 * c / w, k == "wall" ? "" : "_" k, 100 * b / hz / w }'; }
  shares="$(share wall "$(awk -v t0="$t0" -v t1="$t1" 'BEGIN { print t1 - t0 }')")"
  if [[ "${LAST:-0}" == 1 ]]; then
    read -r got last < <(kcat_enqueued "$f.err")
    [[ "$got" == "$n_rec" ]] || die "kcat read $got of $n_rec records from $n (see $f.err)"
    net="$(awk -v b="$bytes" -v t0="$t0" -v t1="$t1" -v l="$last" \
      'BEGIN { printf ",\"to_last_mib_s\":%.2f,\"end_wait_s\":%.3f", b / 1048576 / (l - t0), t1 - l }')"
    net+="$(share to_last "$(awk -v t0="$t0" -v l="$last" 'BEGIN { print l - t0 }')")"
  fi
  step "$n" "$row" "$r" "$bytes" "$c0" "$s0" "$a0" "$rate" ",$cpu$shares$net"
}

round() {
  local n="$1" r="$2" t="kcat-r$2" got
  "$drv" create-topic "${boot[$n]}" "$t" 6 >/dev/null
  kstep "$n" kcat_produce "$r" "$work/produce-$n" kcat -P -b "${boot[$n]}" -t "$t" -X acks=1 <"$work/records"
  got="$(kcat_produced "${boot[$n]}" "$t" 6)"
  [[ "$got" == "$n_rec" ]] || die "kcat produced $got of $n_rec records to $n"
  # exec: the rusage client_cost.py reads is kcat's own, with its output in /dev/null
  LAST=1 kstep "$n" kcat_consume "$r" "$work/consume-$n" \
    bash -c 'exec "$@" >/dev/null' _ kcat -C -b "${boot[$n]}" -t "$t" -o beginning -e -q -d fetch </dev/null
  "$drv" delete-topic "${boot[$n]}" "$t" >/dev/null
  "$drv" create-topic "${boot[$n]}" "$t-all" 6 >/dev/null
  kstep "$n" kcat_produce_all "$r" "$work/produce-all-$n" kcat -P -b "${boot[$n]}" -t "$t-all" -X acks=all <"$work/records"
  got="$(kcat_produced "${boot[$n]}" "$t-all" 6)"
  [[ "$got" == "$n_rec" ]] || die "kcat produced $got of $n_rec records to $n (acks=all)"
  "$drv" delete-topic "${boot[$n]}" "$t-all" >/dev/null
}

say "kcat $(kcat -V 2>&1 | grep -o 'librdkafka [0-9.]*' || true); $n_rec records of $rsize B; load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$rounds"); do
  order=($(rows_order "$r"))
  say "round $r: ${order[*]}"
  for n in "${order[@]}"; do round "$n" "$r"; done
done
python3 "$here/rows_summary.py" "$BENCH_OUT" | tee -a "$BENCH_OUT"
say "results: $BENCH_OUT"
