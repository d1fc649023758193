#!/usr/bin/env bash
# Replays the reference schema registry's recorded answers
# (conformance/registry/recordings/*.json, Apicurio Registry) against a fresh
# ketch's built-in registry (no Apicurio or Java needed):
#
#   tests/conformance/registry_replay.sh KETCH_BIN [recording.json ...]
#
# Starts ketch with --listen 127.0.0.1:0 (so its registry takes a free port
# too) and a temporary data directory, reads the registry's URL from the data
# directory's listeners.json ("schema_registry"), runs
# conformance/registry/registry_conform.py replay with
# conformance/registry/differences.md, stops ketch and cleans up.
# Exit status is the replayer's: 1 on an unexplained difference.
# CONFORM_ARGS adds flags to the replayer (-v: print allowed differences too).
set -euo pipefail

ketch="${1:?usage: registry_replay.sh KETCH_BIN [recording ...]}"
shift
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
reg="$root/conformance/registry"
if [[ $# -gt 0 ]]; then recordings=("$@"); else recordings=("$reg"/recordings/*.json); fi
[[ -e "${recordings[0]}" ]] || { echo "registry_replay.sh: no recordings in $reg/recordings" >&2; exit 1; }

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

"$ketch" --listen 127.0.0.1:0 --data-dir "$tmp/data" --ready-file "$tmp/ready" --log-level warn \
  >"$tmp/ketch.log" 2>&1 &
pid=$!
for _ in $(seq 1 600); do
  [[ -s "$tmp/ready" ]] && break
  kill -0 "$pid" 2>/dev/null || { echo "registry_replay.sh: ketch exited during start-up:" >&2; cat "$tmp/ketch.log" >&2; exit 1; }
  sleep 0.05
done
[[ -s "$tmp/ready" ]] || { echo "registry_replay.sh: ketch not ready after 30 s" >&2; cat "$tmp/ketch.log" >&2; exit 1; }
url="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["schema_registry"])' "$tmp/data/listeners.json")"

rc=0
python3 "$reg/registry_conform.py" replay ${CONFORM_ARGS:-} --url "$url" \
  --differences "$reg/differences.md" "${recordings[@]}" || rc=$?
if ! kill -0 "$pid" 2>/dev/null; then
  echo "registry_replay.sh: ketch died during the replay:" >&2; tail -n 50 "$tmp/ketch.log" >&2; rc=1
fi
exit $rc
