# What the shell benches share (sourced, never run): a work directory, logging, the JSON and
# /proc readers, waiting for a broker to exit, and building the tools a bench drives.
#
#   bench_init NAME  sets here, root, kafka_sh, ketch_bin, work (mktemp /tmp/ketch-NAME.*, with
#                    bin/ and logs/), m (the measurements file, empty); say/die prefix NAME.
#   build_tools T..  copies the ketch binary into work/bin, compiles bench/tools/T.c for each T,
#                    builds bench/driver; sets drv.
#   remove_work      in a cleanup trap: removes work unless BENCH_KEEP=1.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
kafka_sh="$root/conformance/reference/kafka.sh"
ketch_bin="${KETCH_BIN:-$root/${BUILD_DIR:-build}/ketch}"

bench_init() {
  bench_name="$1"
  work="${BENCH_WORK:-$(mktemp -d "/tmp/ketch-$1.XXXXXX")}"
  mkdir -p "$work"/{bin,logs}
  m="$work/measurements.jsonl"
  : >"$m"
}
say() { printf '[%s %s] %s\n' "$bench_name" "$(date +%H:%M:%S)" "$*" >&2; }
die() { say "error: $*"; exit 1; }
remove_work() { if [[ "${BENCH_KEEP:-0}" != 1 ]]; then rm -rf "$work"; else say "work dir kept: $work"; fi; }

build_tools() {
  [[ -x "$ketch_bin" ]] || die "no ketch binary at $ketch_bin (make build, or set KETCH_BIN)"
  cp "$ketch_bin" "$work/bin/ketch"
  local t
  for t in "$@"; do cc -O2 -Wall -Wextra -o "$work/bin/$t" "$here/tools/$t.c" || die "cannot build $t"; done
  (cd "$here/driver" && go build -o "$work/bin/bench-driver" .) || die "cannot build bench/driver (Go)"
  drv="$work/bin/bench-driver"
}

jget() { python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }  # jget JSON FIELD
# cpu_steal: the machine's stolen and total CPU ticks so far (/proc/stat: time the host ran
# something else while this VM had work to run).
cpu_steal() { awk 'NR == 1 { print $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }
now_ms() { date +%s%3N; }
rss_mib() { awk '/^VmRSS:/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }
fds() { find "/proc/$1/fd" -mindepth 1 -maxdepth 1 | wc -l; }
# gone PID: PID has exited. Brokers started through startprobe are orphans and this VM's init
# reaps orphans late, so a zombie counts as gone. wait_gone PID [SECONDS, default 1200].
gone() { local st; st="$(awk '/^State:/ { print $2 }' "/proc/$1/status" 2>/dev/null)"; [[ -z "$st" || "$st" == Z ]]; }
wait_gone() { local i; for i in $(seq 1 $(( ${2:-1200} * 50 ))); do gone "$1" && return 0; sleep 0.02; done; return 1; }

# The restart benches (big_log.sh, first_reads.sh): ketch on $work/data, started through startprobe
# (build_tools startprobe), with the flags in the ketch_extra array; the port is kept across restarts.
# start: sets start_ms (exec to the first ApiVersions answer), port, pid. stop SIGNAL: sets stop_ms.
start_probed() {
  local out
  out="$("$work/bin/startprobe" --timeout-s 600 ${port:+--port "$port"} -- "$work/bin/ketch" \
        --listen '127.0.0.1:{PORT}' --data-dir "$work/data" --log-level warn "${ketch_extra[@]}" \
        2>>"$work/logs/ketch.log")" || die "ketch did not start (log: $work/logs/ketch.log)"
  read -r start_ms port pid <<<"$out"
}
stop_probed() {
  local t0; t0="$(now_ms)"
  kill "-$1" "$pid"; wait_gone "$pid" || die "ketch did not stop"
  stop_ms=$(( $(now_ms) - t0 )); pid=""
}
