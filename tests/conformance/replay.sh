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
cleanup() {
  if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# sasl-* recordings are replayed against a SASL_PLAINTEXT listener with the
# reference's PLAIN user (conformance/reference/kafka.sh, KAFKA_SASL=1).
printf '[[users]]\nname = "alice"\npassword = "alice-secret"\n' >"$tmp/ketch.toml"
"$ketch" --listen 127.0.0.1:0 --data-dir "$tmp/data" --ready-file "$tmp/ready" --log-level warn \
  --config "$tmp/ketch.toml" --listener SASL_PLAINTEXT=SASL_PLAINTEXT://127.0.0.1:0 \
  >"$tmp/ketch.log" 2>&1 &
pid=$!

# Wait for the ready file (written once ketch listens), or for ketch to die.
for _ in $(seq 1 600); do
  [[ -s "$tmp/ready" ]] && break
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "replay.sh: ketch exited during start-up:" >&2; cat "$tmp/ketch.log" >&2; exit 1
  fi
  sleep 0.05
done
[[ -s "$tmp/ready" ]] || { echo "replay.sh: ketch not ready after 30 s" >&2; cat "$tmp/ketch.log" >&2; exit 1; }
bootstrap="$(head -n1 "$tmp/ready")"

sasl_bootstrap="$(grep -o '"SASL_PLAINTEXT":{"address":"[^"]*"' "$tmp/data/listeners.json" | sed 's/.*"address":"//; s/"$//')"
plain=(); sasl=()
for r in "${recordings[@]}"; do
  if [[ "$(basename "$r")" == sasl-* ]]; then sasl+=("$r"); else plain+=("$r"); fi
done

rc=0
if (( ${#plain[@]} )); then
  "$conform" replay ${CONFORM_ARGS:-} --bootstrap "$bootstrap" --differences "$root/conformance/differences.md" "${plain[@]}" || rc=$?
fi
if (( ${#sasl[@]} )); then
  "$conform" replay ${CONFORM_ARGS:-} --bootstrap "$sasl_bootstrap" --differences "$root/conformance/differences.md" "${sasl[@]}" || rc=$?
fi
if ! kill -0 "$pid" 2>/dev/null; then
  echo "replay.sh: ketch died during the replay:" >&2; tail -n 50 "$tmp/ketch.log" >&2; rc=1
fi
exit $rc
