#!/usr/bin/env bash
# Compiles TelemetrySink.java into the reference broker's classpath
# (conformance/reference/dist/lib/ketch-telemetry-sink.jar). Used by the
# telemetry scenario: start the reference with
#   KAFKA_EXTRA_PROPERTIES=conformance/reference/telemetry/telemetry.properties
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dist="$here/../dist/lib"
[[ -d "$dist" ]] || "$here/../kafka.sh" fetch
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
javac -d "$out" -cp "$dist/*" "$here/TelemetrySink.java"
jar cf "$dist/ketch-telemetry-sink.jar" -C "$out" .
echo "$dist/ketch-telemetry-sink.jar"
