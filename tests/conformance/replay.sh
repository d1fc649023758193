#!/usr/bin/env bash
# Replays every conformance recording against a fresh ketch (no Kafka needed):
#
#   tests/conformance/replay.sh KETCH_BIN KETCH_CONFORM_BIN [recording.json ...]
#
# Starts ketch on a free loopback port with a temporary data directory, waits
# for its ready file, runs `ketch-conform replay` over the recordings (all of
# conformance/recordings/*.json by default), stops ketch and cleans up.
# Exit status is ketch-conform's: 1 on an unexplained difference.
# CONFORM_ARGS adds flags to ketch-conform replay (e.g. -v: print allowed
# differences too).
set -euo pipefail

ketch="${1:?usage: replay.sh KETCH_BIN KETCH_CONFORM_BIN [recording ...]}"
conform="${2:?usage: replay.sh KETCH_BIN KETCH_CONFORM_BIN [recording ...]}"
shift 2
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if [[ $# -gt 0 ]]; then recordings=("$@"); else recordings=("$root"/conformance/recordings/*.json); fi
[[ -e "${recordings[0]}" ]] || { echo "replay.sh: no recordings in $root/conformance/recordings" >&2; exit 1; }

tmp="$(mktemp -d)"
pid=""
acl_pid=""
cleanup() {
  for p in "$pid" "$acl_pid"; do
    if [[ -n "$p" ]] && kill -0 "$p" 2>/dev/null; then
      kill -TERM "$p"
      wait "$p" 2>/dev/null || true
    fi
  done
  rm -rf "$tmp"
}
trap cleanup EXIT

# Waits for the ready file $1 of ketch $2 (log $3); prints the bootstrap address.
wait_ready() {
  for _ in $(seq 1 600); do
    [[ -s "$1" ]] && break
    if ! kill -0 "$2" 2>/dev/null; then
      echo "replay.sh: ketch exited during start-up:" >&2; cat "$3" >&2; exit 1
    fi
    sleep 0.05
  done
  [[ -s "$1" ]] || { echo "replay.sh: ketch not ready after 30 s" >&2; cat "$3" >&2; exit 1; }
  head -n1 "$1"
}

# sasl-* recordings are replayed against a SASL_PLAINTEXT listener with the
# reference's PLAIN user (conformance/reference/kafka.sh, KAFKA_SASL=1);
# acl-* ones against a second ketch with --authorizer (below).
printf '[[users]]\nname = "alice"\npassword = "alice-secret"\n' >"$tmp/ketch.toml"
"$ketch" --listen 127.0.0.1:0 --data-dir "$tmp/data" --ready-file "$tmp/ready" --log-level warn \
  --config "$tmp/ketch.toml" --listener SASL_PLAINTEXT=SASL_PLAINTEXT://127.0.0.1:0 \
  >"$tmp/ketch.log" 2>&1 &
pid=$!

bootstrap="$(wait_ready "$tmp/ready" "$pid" "$tmp/ketch.log")"
sasl_listener() { grep -o '"SASL_PLAINTEXT":{"address":"[^"]*"' "$1/listeners.json" | sed 's/.*"address":"//; s/"$//'; }
sasl_bootstrap="$(sasl_listener "$tmp/data")"
plain=(); sasl=(); acl=()
for r in "${recordings[@]}"; do
  case "$(basename "$r")" in
    sasl-*) sasl+=("$r") ;;
    acl-*) acl+=("$r") ;;
    *) plain+=("$r") ;;
  esac
done

# acl-* recordings: a second ketch with the authorizer, the reference's super
# users and PLAIN users (conformance/reference/acl.properties).
if (( ${#acl[@]} )); then
  mkdir -p "$tmp/acl"
  printf '[[users]]\nname = "admin"\npassword = "admin-secret"\n[[users]]\nname = "alice"\npassword = "alice-secret"\n[[users]]\nname = "bob"\npassword = "bob-secret"\n' >"$tmp/acl/ketch.toml"
  "$ketch" --listen 127.0.0.1:0 --data-dir "$tmp/acl/data" --ready-file "$tmp/acl/ready" --log-level warn \
    --config "$tmp/acl/ketch.toml" --listener SASL_PLAINTEXT=SASL_PLAINTEXT://127.0.0.1:0 \
    --authorizer --super-users 'User:admin;User:ANONYMOUS' >"$tmp/acl/ketch.log" 2>&1 &
  acl_pid=$!
  wait_ready "$tmp/acl/ready" "$acl_pid" "$tmp/acl/ketch.log" >/dev/null
  acl_bootstrap="$(sasl_listener "$tmp/acl/data")"
fi

rc=0
if (( ${#plain[@]} )); then
  "$conform" replay ${CONFORM_ARGS:-} --bootstrap "$bootstrap" --differences "$root/conformance/differences.md" "${plain[@]}" || rc=$?
fi
if (( ${#sasl[@]} )); then
  "$conform" replay ${CONFORM_ARGS:-} --bootstrap "$sasl_bootstrap" --differences "$root/conformance/differences.md" "${sasl[@]}" || rc=$?
fi
if (( ${#acl[@]} )); then
  "$conform" replay ${CONFORM_ARGS:-} --bootstrap "$acl_bootstrap" --differences "$root/conformance/differences.md" "${acl[@]}" || rc=$?
  if ! kill -0 "$acl_pid" 2>/dev/null; then
    echo "replay.sh: ketch (--authorizer) died during the replay:" >&2; tail -n 50 "$tmp/acl/ketch.log" >&2; rc=1
  fi
fi
if ! kill -0 "$pid" 2>/dev/null; then
  echo "replay.sh: ketch died during the replay:" >&2; tail -n 50 "$tmp/ketch.log" >&2; rc=1
fi
exit $rc
