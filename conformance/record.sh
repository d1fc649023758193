#!/usr/bin/env bash
# Records Apache Kafka's answers to every scenario (or the ones named):
#
#   conformance/record.sh [scenario-name ...]
#
# Starts the reference broker (conformance/reference/kafka.sh) when it is not
# running, and stops it again afterwards in that case only. Each scenario is
# run twice; the two runs must agree after normalisation, or nothing is
# written (a sign that a normalisation rule is missing). Writes
# conformance/recordings/<name>.json. `make conformance` calls this.
#
# Environment: BUILD_DIR (default build) holds ketch-conform; CONFORM=path
# overrides the tool; RUNS (default 2) sets how many runs must agree.
# The telemetry scenario needs the reference with a client telemetry receiver
# (reference/telemetry/: build.sh, then KAFKA_EXTRA_PROPERTIES=
# conformance/reference/telemetry/telemetry.properties); without it, skipped.

set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
tool="${CONFORM:-$root/${BUILD_DIR:-build}/ketch-conform}"
[[ -x "$tool" ]] || { echo "record.sh: $tool not built (ninja -C ${BUILD_DIR:-build} ketch-conform)" >&2; exit 1; }

started=0
if ! "$here/reference/kafka.sh" status >/dev/null 2>&1; then
  started=1
fi
# sasl-* and acl-* scenarios run against the reference's SASL_PLAINTEXT listener (KAFKA_SASL=1);
# acl-* need the reference started with KAFKA_EXTRA_PROPERTIES=conformance/reference/acl.properties.
export KAFKA_SASL=1
bootstrap="$("$here/reference/kafka.sh" start)"
sasl_bootstrap="$("$here/reference/kafka.sh" sasl-bootstrap || true)"
stop_if_started() { if (( started )); then "$here/reference/kafka.sh" stop >/dev/null; fi; }
trap stop_if_started EXIT

jar="$(ls "$here"/reference/dist/lib/kafka_2.13-*.jar 2>/dev/null | grep -v -e sources -e test | head -n1)"
version="$(basename "$jar" .jar)"; version="${version#kafka_2.13-}"
[[ -n "$version" ]] || { echo "record.sh: cannot tell the Kafka version from $here/reference/dist/lib" >&2; exit 1; }

if [[ $# -gt 0 ]]; then
  scenarios=(); for n in "$@"; do scenarios+=("$here/scenarios/$n.json"); done
else
  scenarios=("$here"/scenarios/*.json)
fi

mkdir -p "$here/recordings"
failed=0
for s in "${scenarios[@]}"; do
  name="$(basename "$s" .json)"
  target="$bootstrap"
  if [[ "$name" == sasl-* || "$name" == acl-* ]]; then
    [[ -n "$sasl_bootstrap" ]] || { echo "record.sh: $name needs the reference's SASL listener (restart it with KAFKA_SASL=1)" >&2; failed=1; continue; }
    target="$sasl_bootstrap"
  fi
  if [[ "$name" == telemetry ]] && ! grep -q '^metric.reporters=ketch.conform.TelemetrySink' \
       "${KAFKA_REF_RUN:-$here/reference/run}/server.properties" 2>/dev/null; then
    echo "record.sh: telemetry needs the reference with a metrics receiver: run reference/telemetry/build.sh, then" \
         "restart it with KAFKA_EXTRA_PROPERTIES=conformance/reference/telemetry/telemetry.properties; skipped" >&2
    continue
  fi
  if ! "$tool" record --bootstrap "$target" --scenario "$s" --out "$here/recordings/$name.json" \
       --kafka-version "$version" --runs "${RUNS:-2}"; then
    echo "record.sh: $name FAILED" >&2
    failed=1
  fi
done
exit $failed
