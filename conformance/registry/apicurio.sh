#!/usr/bin/env bash
# The reference schema registry: Apicurio Registry 2.4.2.Final (in-memory H2
# storage), which serves Confluent Schema Registry's REST API at
# /apis/ccompat/v7. Built from Maven Central artifacts only by the wrapper
# project in conformance/registry/apicurio/ (our own pom and one class; the
# build output stays in its target/, which git ignores).
#
#   apicurio.sh build     build target/apicurio-runner-1-runner.jar if missing
#   apicurio.sh start     build if needed, start on a free loopback port (or
#                         APICURIO_PORT), wait until the API answers; prints the
#                         Confluent-compatible base URL. Reports the running one
#                         if already started.
#   apicurio.sh url       the base URL of the running registry
#   apicurio.sh status    exit 0 when running and answering
#   apicurio.sh stop      stop it (the process this script started, by its pid)
#
# State in conformance/registry/run/ (pid, port, log); git ignores it.
# Needs a JDK 17+ and Maven (deps/apt-test.txt: the Java client tests use both).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
project="$here/apicurio"
jar="$project/target/apicurio-runner-1-runner.jar"
run="$here/run"
host=127.0.0.1

die() { echo "apicurio.sh: $*" >&2; exit 1; }

port_open() { (exec 3<>"/dev/tcp/$host/$1") 2>/dev/null; }

free_port() {
  local p
  for _ in $(seq 1 200); do
    p=$(( 20000 + RANDOM % 30000 ))
    if ! port_open "$p"; then echo "$p"; return; fi
  done
  die "no free port found"
}

pid_running() { [[ -f "$run/pid" ]] && kill -0 "$(cat "$run/pid")" 2>/dev/null; }

url() { echo "http://$host:$(cat "$run/port")/apis/ccompat/v7"; }

answering() { pid_running && curl -sf -o /dev/null "$(url)/subjects"; }

cmd_build() {
  [[ -f "$jar" ]] && return 0
  command -v mvn >/dev/null || die "mvn not found (apt-get install maven)"
  echo "apicurio.sh: building the Apicurio runner (Maven Central; first time several minutes)" >&2
  (cd "$project" && mvn -B -q package -DskipTests) >&2 || die "maven build failed"
  [[ -f "$jar" ]] || die "maven build produced no $jar"
}

cmd_start() {
  if answering; then url; return 0; fi
  pid_running && cmd_stop
  cmd_build
  mkdir -p "$run"
  local port="${APICURIO_PORT:-$(free_port)}"
  echo "$port" >"$run/port"
  # setsid: its own process group, so that stop ends the JVM and nothing else.
  setsid java -Dquarkus.http.host="$host" -Dquarkus.http.port="$port" -jar "$jar" \
    >"$run/apicurio.log" 2>&1 </dev/null &
  echo $! >"$run/pid"
  for _ in $(seq 1 1200); do   # up to 120 s; it usually answers after 20-50 s
    if answering; then url; return 0; fi
    pid_running || { tail -n 40 "$run/apicurio.log" >&2; die "Apicurio exited during start-up"; }
    sleep 0.1
  done
  tail -n 40 "$run/apicurio.log" >&2
  cmd_stop
  die "Apicurio not answering after 120 s"
}

cmd_stop() {
  if pid_running; then
    local pid; pid="$(cat "$run/pid")"
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$run/pid"
}

case "${1:-}" in
  build) cmd_build ;;
  start) cmd_start ;;
  url) pid_running || die "not running"; url ;;
  status) answering ;;
  stop) cmd_stop ;;
  *) die "usage: apicurio.sh build|start|url|status|stop" ;;
esac
