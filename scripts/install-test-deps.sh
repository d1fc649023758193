#!/usr/bin/env bash
# Installs what the client tests (tests/clients/) need, from pinned committed files:
#   - the project venv .venv/ with tests/clients/requirements.txt (pytest, confluent-kafka, kafka-python)
#   - the Java driver   (tests/clients/java/build.sh)
#   - Kafka's own tools (kafka-tools 4.3.1 from Maven, via conformance/reference/kafka.sh fetch)
#   - the kafkajs driver (npm ci in tests/clients/node)
#   - puppeteer-core for the console browser test (npm ci in tests/console/browser)
#   - the franz-go driver (go build in tests/clients/go -> tests/clients/go/driver)
#   - franz-go's own module for the outside suite (go mod download in tests/outside/franz-go;
#     kafka-python's sdist for the other outside suite is fetched by tests/outside/run.py)
# Each driver step runs only when its directory exists, and only when its inputs are
# newer than what was built last time; a second run with nothing changed does no work.
# kcat and python3-venv come from Debian (deps/apt-test.txt, scripts/install-deps.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
clients="$root/tests/clients"
stamps="$root/.cache/test-deps"
mkdir -p "$stamps"

step() { printf 'test-deps: %-8s %s\n' "$1" "$2"; }
have() { command -v "$1" >/dev/null 2>&1; }

# True when some file under $1 (pruning the names in $3..) is newer than file $2 (or $2 is missing).
newer_than() {
  local dir="$1" ref="$2"; shift 2
  [[ -e "$ref" ]] || return 0
  local prune=()
  for p in "$@"; do prune+=(-name "$p" -prune -o); done
  [[ -n "$(find "$dir" "${prune[@]}" -newer "$ref" -type f -print -quit)" ]]
}

# ---- Python venv ----
venv="$root/.venv"
req="$clients/requirements.txt"
if [[ ! -x "$venv/bin/python" ]]; then
  step python "creating $venv"
  python3 -m venv "$venv"
fi
if cmp -s "$req" "$stamps/requirements.txt" && "$venv/bin/python" -c 'import pytest, confluent_kafka, kafka, boto3, moto' 2>/dev/null; then
  step python "up to date"
else
  step python "installing $(basename "$req")"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-input -r "$req"
  cp "$req" "$stamps/requirements.txt"
fi

# ---- Java (kafka-clients) ----
if [[ -x "$clients/java/build.sh" ]] && ! { have java && have mvn; }; then
  step java "skipped: java/mvn not installed (its client tests will skip)"
elif [[ -x "$clients/java/build.sh" ]]; then
  if [[ ! -d "$clients/java/target" ]] || newer_than "$clients/java" "$stamps/java" target; then
    step java "building"
    (cd "$clients/java" && ./build.sh)
    touch "$stamps/java"
  else
    step java "up to date"
  fi
else
  step java "skipped (no tests/clients/java/build.sh)"
fi

# ---- Kafka's tools (kafka-tools 4.3.1 and its dependencies, tests/clients/test_kafka_tools.py) ----
# The reference broker's jars (conformance/reference/pom.xml) carry them: resolved once from Maven.
if ! { have java && have mvn; }; then
  step tools "skipped: java/mvn not installed (test_kafka_tools will skip)"
elif [[ -f "$root/conformance/reference/dist/lib/kafka-tools-4.3.1.jar" ]]; then
  step tools "up to date"
else
  step tools "resolving kafka-tools 4.3.1 (conformance/reference/kafka.sh fetch)"
  "$root/conformance/reference/kafka.sh" fetch
fi

# ---- Node (kafkajs) ----
if [[ -f "$clients/node/package.json" ]] && ! have npm; then
  step node "skipped: npm not installed (its client tests will skip)"
elif [[ -f "$clients/node/package.json" ]]; then
  # npm ci rewrites node_modules/.package-lock.json: newer than the lock file = installed.
  installed="$clients/node/node_modules/.package-lock.json"
  if [[ ! -e "$installed" || "$clients/node/package-lock.json" -nt "$installed" ||
        "$clients/node/package.json" -nt "$installed" ]]; then
    step node "npm ci"
    (cd "$clients/node" && npm ci --no-audit --no-fund --loglevel=error)
    touch "$installed"
  else
    step node "up to date"
  fi
else
  step node "skipped (no tests/clients/node/package.json)"
fi

# ---- Console browser test (puppeteer-core; the browser is Debian's chromium) ----
browser="$root/tests/console/browser"
if [[ -f "$browser/package.json" ]] && ! have npm; then
  step console "skipped: npm not installed (the browser test will skip)"
elif [[ -f "$browser/package.json" ]]; then
  installed="$browser/node_modules/.package-lock.json"
  if [[ ! -e "$installed" || "$browser/package-lock.json" -nt "$installed" || "$browser/package.json" -nt "$installed" ]]; then
    step console "npm ci (puppeteer-core, no browser download)"
    (cd "$browser" && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
    touch "$installed"
  else
    step console "up to date"
  fi
fi

# ---- Go (franz-go) ----
if [[ -f "$clients/go/go.mod" ]] && ! have go; then
  step go "skipped: go not installed (its client tests will skip)"
elif [[ -f "$clients/go/go.mod" ]] && compgen -G "$clients/go/*.go" >/dev/null; then
  if newer_than "$clients/go" "$clients/go/driver" driver; then
    step go "go build"
    (cd "$clients/go" && go build -o driver .)
  else
    step go "up to date"
  fi
else
  step go "skipped (no tests/clients/go/*.go)"
fi

# ---- Outside suites: franz-go's pkg/kgo tests (tests/outside/run.py) ----
outside_go="$root/tests/outside/franz-go"
if [[ -f "$outside_go/go.mod" ]] && ! have go; then
  step outside "skipped: go not installed (the franz-go outside suite will skip)"
elif [[ -f "$outside_go/go.mod" ]]; then
  if newer_than "$outside_go" "$stamps/outside-franz-go"; then
    step outside "go mod download (franz-go, pinned by tests/outside/franz-go/go.mod)"
    (cd "$outside_go" && go mod download && go test -count=1 -run '^$' github.com/twmb/franz-go/pkg/kgo >/dev/null)
    touch "$stamps/outside-franz-go"
  else
    step outside "up to date"
  fi
fi
