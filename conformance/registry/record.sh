#!/usr/bin/env bash
# Records the reference schema registry's answers (Apicurio Registry 2.4.2,
# conformance/registry/apicurio.sh) to every registry scenario, or the ones named:
#
#   conformance/registry/record.sh [scenario-name ...]
#
# Starts Apicurio when it is not running (building it from Maven Central the
# first time) and stops it again afterwards in that case only. Before
# recording, the reference's global compatibility is set to BACKWARD,
# Confluent's default and a fresh ketch's (a fresh Apicurio has no global rule,
# and the scenarios must not depend on what earlier runs left). Each scenario
# runs twice with different subject names; both runs must agree after
# normalisation, or nothing is written. Writes
# conformance/registry/recordings/<name>.json. `make conformance` calls this.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
started=0
"$here/apicurio.sh" status || started=1
url="$("$here/apicurio.sh" start)"
stop_if_started() { if (( started )); then "$here/apicurio.sh" stop; fi; }
trap stop_if_started EXIT

curl -sf -X PUT -H 'Content-Type: application/vnd.schemaregistry.v1+json' \
  -d '{"compatibility":"BACKWARD"}' "$url/config" >/dev/null

if [[ $# -gt 0 ]]; then
  scenarios=(); for n in "$@"; do scenarios+=("$here/scenarios/$n.json"); done
else
  scenarios=("$here"/scenarios/*.json)
fi
python3 "$here/registry_conform.py" record --url "$url" --runs "${RUNS:-2}" "${scenarios[@]}"
