#!/usr/bin/env bash
# Runs tests/clients/test_cli.py (the `ketch topic|produce|consume|group|...`
# command line) against the reference Apache Kafka 4.3.1
# (conformance/reference/kafka.sh), so every command is shown to give the same
# visible result there as against ketch. Starting Kafka takes 20-30 s, so this
# is part of `make conformance`, not `make test`. The tests that start a SASL
# ketch of their own skip here.
#
# Starts the reference when it is not running and stops it again afterwards in
# that case only. The SASL tests (logins, ACLs, SCRAM users) run against a
# second reference Kafka of their own (in a temporary run dir:
# a SASL_PLAINTEXT listener, StandardAuthorizer, super.users alice), started and
# stopped here. Environment: BUILD_DIR (default build), KAFKA_REF_RUN (see kafka.sh).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ref="$root/conformance/reference/kafka.sh"
started=0
if ! "$ref" status >/dev/null 2>&1; then
  started=1
fi
bootstrap="$("$ref" start)"
sasl_run="$(mktemp -d)"
cleanup() {
  if [[ $started == 1 ]]; then "$ref" stop >/dev/null 2>&1 || true; fi
  KAFKA_REF_RUN="$sasl_run/run" "$ref" stop >/dev/null 2>&1 || true
  rm -rf "$sasl_run"
}
trap cleanup EXIT
cat >"$sasl_run/authorizer.properties" <<'PROPS'
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
super.users=User:alice;User:ANONYMOUS
PROPS
KAFKA_REF_RUN="$sasl_run/run" KAFKA_SASL=1 KAFKA_EXTRA_PROPERTIES="$sasl_run/authorizer.properties" \
  "$ref" start >/dev/null
sasl_bootstrap="$(KAFKA_REF_RUN="$sasl_run/run" "$ref" sasl-bootstrap)"
cd "$root/tests/clients"
KETCH_TEST_BOOTSTRAP="$bootstrap" KETCH_TEST_SASL_BOOTSTRAP="$sasl_bootstrap" KETCH_BIN="$root/${BUILD_DIR:-build}/ketch" \
  "$root/.venv/bin/python" -m pytest test_cli.py -q -rs -p no:cacheprovider
