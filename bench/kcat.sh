# bench/kcat.sh — sourced by bench/run.sh and bench/librdkafka_rows.sh: the librdkafka rows'
# pieces (kcat, Debian's librdkafka 2.x build; deps/apt-test.txt). Properties: acks=1 only
# (librdkafka's default is acks=all); the rest librdkafka's defaults (bench/librdkafka_rows.sh).
#
#   kcat_records FILE N SIZE       N lines of SIZE bytes (kcat -P sends one record a line)
#   kcat_produced BOOT TOPIC PARTS the sum of the topic's end offsets (kcat -Q, timestamp -1)
#   kcat_enqueued FILE             from the stderr of a kcat -C -d fetch: the records librdkafka
#                                  handed to kcat (its "Enqueue N message(s)" lines) and the time
#                                  of the last hand-over (seconds since the epoch, to the ms)
#   kcat_round BROKER BOOT TOPIC   bench/run.sh's step (uses its drv, parts, rsize, work,
#                                  broker_pid, cpu_ticks, record, record_cpu and die): kcat
#                                  produces BENCH_KCAT_RECORDS into a fresh TOPIC, then reads them
#                                  back (-C -e -o beginning, output to /dev/null); MiB/s from
#                                  the exec to kcat's exit, and for the read also to the last
#                                  record handed to kcat (librdkafka waits ~0.5 s for the end:
#                                  bench/librdkafka_rows.sh), and the broker's CPU per MiB;
#                                  nothing when kcat is not installed
kcat_records() {
  python3 -c 'import sys
n, size = int(sys.argv[1]), int(sys.argv[2])
line = b"x" * size + b"\n"
with open(sys.argv[3], "wb") as f:
    for _ in range(n // 1000): f.write(line * 1000)
    f.write(line * (n % 1000))' "$2" "$3" "$1"
}

kcat_produced() {
  local q=() p
  for p in $(seq 0 $(($3 - 1))); do q+=(-t "$2:$p:-1"); done
  kcat -b "$1" -Q "${q[@]}" | awk '{ s += $NF } END { print s + 0 }'
}

kcat_enqueued() {
  awk -F'|' '/Enqueue [0-9]+ message/ { split($NF, w, "Enqueue "); n += w[2] + 0; t = $2 } END { printf "%d %s\n", n, t ? t : 0 }' "$1"
}

kcat_round() {
  local n="${BENCH_KCAT_RECORDS:-100000}" f="$work/kcat-records" cpu0 t0 t1 s got last
  command -v kcat >/dev/null || { say "kcat is not installed (deps/apt-test.txt): no librdkafka rows"; return 0; }
  [[ -s "$f" ]] || kcat_records "$f" "$n" "$rsize"
  "$drv" create-topic "$2" "$3" "$parts" >/dev/null
  for s in produce consume; do
    cpu0="$(cpu_ticks "$(broker_pid "$1")")"; t0="$(date +%s.%N)"
    if [[ $s == produce ]]; then kcat -P -b "$2" -t "$3" -X acks=1 <"$f" || die "kcat -P failed on $1"
    else kcat -C -b "$2" -t "$3" -o beginning -e -q -d fetch >/dev/null 2>"$work/kcat-$1.err" </dev/null ||
      die "kcat -C failed on $1"; fi
    t1="$(date +%s.%N)"
    record "kcat_${s}_mib_s" "$1" "$(awk -v b=$((n * rsize)) -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%.2f", b / 1048576 / (t1 - t0) }')" MiB/s
    if [[ $s == consume ]]; then  # to the last record, without librdkafka's wait for the end
      read -r got last < <(kcat_enqueued "$work/kcat-$1.err")
      [[ "$got" == "$n" ]] || die "kcat read $got of $n records from $1"
      record kcat_consume_to_last_mib_s "$1" "$(awk -v b=$((n * rsize)) -v t0="$t0" -v t1="$last" 'BEGIN { printf "%.2f", b / 1048576 / (t1 - t0) }')" MiB/s
    fi
    record_cpu "cpu_kcat_$s" "$1" "$cpu0" $((n * rsize))
    [[ $s == consume || "$(kcat_produced "$2" "$3" "$parts")" == "$n" ]] || die "kcat did not produce $n records to $1"
  done
  "$drv" delete-topic "$2" "$3" >/dev/null
}
