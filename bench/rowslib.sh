# bench/rowslib.sh — sourced by bench/produce_rows.sh and bench/consume_rows.sh: one or more
# ketch binaries (NAME=BINARY arguments) and the reference Kafka 4.3.1 started side by side on
# private ports and a private work directory (bench/lib.sh), and what a step records.
#
#   rows_start PREFIX NAME=BINARY...  sets work, drv (bench/driver), names (the ketch NAMEs, then
#                                     kafka), pid[NAME], boot[NAME]; stops everything on exit
#   rows_order R                      the names in round R's order (turned every other round)
#   step NAME ROW ROUND BYTES CPU0 STEAL0 ALL0 MIB_S [EXTRA_JSON]
#                                     one JSON line (stdout and $out): the rate, the broker's CPU
#                                     per MiB since CPU0, the host's CPU steal since STEAL0/ALL0
# Environment: BENCH_OUT [/dev/null] also receives every JSON line.

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
out="${BENCH_OUT:-/dev/null}"
declare -A pid boot

rows_cleanup() {
  set +e
  for n in "${!pid[@]}"; do [[ $n == kafka ]] || kill "${pid[$n]}" 2>/dev/null; done
  "$kafka_sh" stop >/dev/null 2>&1
  remove_work
}

rows_start() {
  bench_init "$1"; shift
  trap rows_cleanup EXIT
  export KAFKA_REF_RUN="$work/kafka" KAFKA_EXTRA_PROPERTIES="$work/kafka-extra.properties"
  echo "log.flush.scheduler.interval.ms=1000" >"$KAFKA_EXTRA_PROPERTIES"  # as bench/run.sh
  (cd "$here/driver" && go build -o "$work/bin/bench-driver" .) || die "cannot build bench/driver (Go)"
  drv="$work/bin/bench-driver"
  names=()
  local a n b port
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
}

rows_order() {
  if (( $1 % 2 )); then printf '%s\n' "${names[@]}"; else printf '%s\n' "${names[@]}" | tac; fi
}

ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
steal() { cpu_steal; }
emit() { echo "$1" | tee -a "$out"; }
step() {
  local s1 a1; read -r s1 a1 < <(steal)
  emit "$(printf '{"broker":"%s","row":"%s","round":%s,"mib_s":%s,"cpu_ms_per_mib":%s,"steal_pct":%s%s}' \
    "$1" "$2" "$3" "$8" "$(awk -v d=$(( $(ticks "${pid[$1]}") - $5 )) -v b="$4" 'BEGIN { printf "%.2f", d * 10 / (b / 1048576) }')" \
    "$(awk -v s=$((s1 - $6)) -v a=$((a1 - $7)) 'BEGIN { printf "%.2f", a ? 100 * s / a : 0 }')" "${9:-}")"
}
