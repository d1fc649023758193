#!/usr/bin/env bash
# Runs the client tests that drive Kafka's own programs -- tests/clients/test_kafka_tools.py
# (VerifiableProducer, VerifiableConsumer, VerifiableShareConsumer, TransactionalMessageCopier)
# and tests/clients/test_streams_groups.py (a Kafka Streams 4.3.1 word count with
# group.protocol=streams and exactly_once_v2) -- against the reference Apache Kafka 4.3.1
# (conformance/reference/kafka.sh), so the outcome `make test` checks against ketch is shown
# to be Kafka's outcome too (issue 23). Tests that restart the broker or set a flag of the
# ketch under test skip there (KETCH_TEST_BOOTSTRAP, tests/clients/conftest.py).
#
# A fresh Kafka of its own (KAFKA_REF_RUN=build/tools-reference/kafka), stopped afterwards.
# Part of `make conformance` (Kafka takes 20-30 s to start). Environment: BUILD_DIR (default build).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ref="$root/conformance/reference/kafka.sh"
run="$root/${BUILD_DIR:-build}/tools-reference/kafka"
mkdir -p "$run"
export KAFKA_REF_RUN="$run"
"$ref" clean >/dev/null 2>&1 || true
trap '"$ref" stop >/dev/null 2>&1 || true' EXIT
bootstrap="$("$ref" start)"
echo "tools-reference: Kafka's tools and Kafka Streams against Apache Kafka at $bootstrap"
cd "$root/tests/clients"
KETCH_TEST_BOOTSTRAP="$bootstrap" KETCH_BIN="$root/${BUILD_DIR:-build}/ketch" \
  "$root/.venv/bin/python" -m pytest test_kafka_tools.py test_streams_groups.py -q -rs -p no:cacheprovider
