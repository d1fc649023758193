#!/usr/bin/env bash
# Runs the outside suites (tests/outside/run.py: franz-go's pkg/kgo tests and kafka-python's
# test/integration tests) against the reference Apache Kafka 4.3.1
# (conformance/reference/kafka.sh), to show that each suite's allow-list
# (tests/outside/*-skips.txt) holds only tests Kafka fails too (`both`) or tests that
# pass against Kafka and not against ketch (`ketch`, each with its reason).
#
# Each suite gets a Kafka of its own (KAFKA_REF_RUN=build/outside-reference/SUITE), configured
# as that suite's own CI configures its broker, the same settings run.py gives ketch:
#   franz-go      Kafka's defaults, plus a SASL_PLAINTEXT listener (KAFKA_SASL=1) for its SCRAM tests,
#                 with OAUTHBEARER (Kafka's default, unsecured validator) for TestOAuthAuth
#   kafka-python  node.id=0, StandardAuthorizer with allow.everyone.if.no.acl.found=true,
#                 num.partitions=4, group.min.session.timeout.ms=1000,
#                 group.initial.rebalance.delay.ms=0
# Part of `make conformance` (Kafka takes 20-30 s to start; the suites ~10 min together).
# Usage: scripts/outside-reference.sh [SUITE...]   Environment: BUILD_DIR (default build).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ref="$root/conformance/reference/kafka.sh"
base="$root/${BUILD_DIR:-build}/outside-reference"
suites=("$@")
[[ ${#suites[@]} -gt 0 ]] || suites=(franz-go kafka-python)

status=0
for suite in "${suites[@]}"; do
  run="$base/$suite"
  mkdir -p "$run"
  props="$run/extra.properties"
  : >"$props"
  if [[ $suite == kafka-python ]]; then
    cat >"$props" <<'PROPS'
node.id=0
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
allow.everyone.if.no.acl.found=true
num.partitions=4
group.min.session.timeout.ms=1000
group.initial.rebalance.delay.ms=0
PROPS
  fi
  if [[ $suite == franz-go ]]; then
    cat >"$props" <<'PROPS'
sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER
listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;
PROPS
  fi
  sasl=0 sasl_args=()
  [[ $suite == franz-go ]] && sasl=1
  # A fresh broker each time: no topics or groups left over from an earlier run.
  KAFKA_REF_RUN="$run/kafka" "$ref" clean >/dev/null 2>&1 || true
  bootstrap="$(KAFKA_REF_RUN="$run/kafka" KAFKA_SASL=$sasl KAFKA_EXTRA_PROPERTIES="$props" "$ref" start)"
  if [[ $sasl == 1 ]]; then
    sasl_args=(--sasl-bootstrap "$(KAFKA_REF_RUN="$run/kafka" "$ref" sasl-bootstrap)")
  fi
  echo "outside-reference: $suite against Apache Kafka at $bootstrap"
  if ! KETCH_BIN="${KETCH_BIN:-$root/${BUILD_DIR:-build}/ketch}" "$root/.venv/bin/python" \
        "$root/tests/outside/run.py" "$suite" --reference --bootstrap "$bootstrap" "${sasl_args[@]}" \
        --work "$run/work"; then
    status=1
  fi
  KAFKA_REF_RUN="$run/kafka" "$ref" stop >/dev/null 2>&1 || true
done
exit $status
