#!/usr/bin/env bash
# The reference Apache Kafka 4.3.1 broker: one KRaft node (broker+controller) on loopback.
#
#   kafka.sh start [--port P]   start (or just report) the broker; prints HOST:PORT
#   kafka.sh stop               SIGTERM, wait for a clean exit (SIGKILL after 60 s)
#   kafka.sh status             prints "running HOST:PORT" (exit 0) or "stopped" (exit 3)
#   kafka.sh bootstrap          prints HOST:PORT when running (exit 3 otherwise)
#   kafka.sh sasl-bootstrap     the SASL_PLAINTEXT listener's HOST:PORT (KAFKA_SASL=1; exit 3 otherwise)
#   kafka.sh clean              stop, then delete run/ (data, logs, ports)
#   kafka.sh fetch              resolve the Kafka jars into dist/lib (start does it when missing)
#   kafka.sh tools CLASS args   run a Kafka tool class, e.g. org.apache.kafka.tools.ProducerPerformance
#
# State lives in run/ (git-ignored; KAFKA_REF_RUN=DIR selects another directory, i.e. another
# independent broker): server.properties, data/, server.log, kafka.pid,
# ports ("PLAINTEXT_PORT CONTROLLER_PORT"), bootstrap ("127.0.0.1:PORT").
# Storage is formatted once and kept across stop/start; it is re-formatted only when the
# remembered ports cannot be reused (the KRaft voter set records the controller endpoint).
# All commands that change state hold run/.start.lock, so concurrent callers are serialised.
#
# Options for `start` (environment; without them the broker is as described above):
#   KAFKA_SASL=1  adds a SASL_PLAINTEXT listener (port in run/sasl_bootstrap, printed by
#                 `kafka.sh sasl-bootstrap`) with PLAIN (user alice / alice-secret) and
#                 SCRAM-SHA-256/512 (no SCRAM users) enabled.
#   KAFKA_EXTRA_PROPERTIES=FILE  appended to server.properties (later keys win).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dist="$here/dist/lib"
run="${KAFKA_REF_RUN:-$here/run}"  # another directory gives an independent second broker
host=127.0.0.1
java_bin="${JAVA:-java}"
ready_timeout_s="${KAFKA_READY_TIMEOUT_S:-120}"

die() { echo "kafka.sh: $*" >&2; exit 1; }

ensure_dist() {
  if [[ ! -f "$dist/kafka_2.13-4.3.1.jar" || ! -f "$dist/kafka-tools-4.3.1.jar" ]]; then
    echo "kafka.sh: resolving Kafka 4.3.1 jars into $dist" >&2
    (cd "$here" && mvn -q -B dependency:copy-dependencies) >&2 || die "maven resolve failed"
  fi
}

# pid of the running broker, or nothing.
broker_pid() {
  local pid
  [[ -f "$run/kafka.pid" ]] || return 0
  pid="$(cat "$run/kafka.pid")"
  if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null &&
     tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'kafka\.Kafka'; then
    echo "$pid"
  fi
}

port_open() { (exec 3<>"/dev/tcp/$host/$1") 2>/dev/null; }

# A port nobody listens on, other than the ones given as arguments.
free_port() {
  local p i
  for i in $(seq 1 200); do
    p=$(( 20000 + RANDOM % 40000 ))
    [[ " $* " == *" $p "* ]] && continue
    if ! port_open "$p" && ! ss -Htan "sport = :$p" 2>/dev/null | grep -q .; then
      echo "$p"; return 0
    fi
  done
  die "no free port found"
}

write_properties() {
  local port="$1" cport="$2"
  local extra_listeners="" extra_map=""
  if [[ "${KAFKA_SASL:-}" == 1 ]]; then
    local sport
    if [[ -f "$run/sasl_port" ]] && ! port_open "$(cat "$run/sasl_port")"; then
      sport="$(cat "$run/sasl_port")"
    else
      sport="$(free_port "$cport")"
      echo "$sport" >"$run/sasl_port"
    fi
    extra_listeners=",SASL_PLAINTEXT://$host:$sport"
    extra_map=",SASL_PLAINTEXT:SASL_PLAINTEXT"
    echo "$host:$sport" >"$run/sasl_bootstrap"
  else
    rm -f "$run/sasl_bootstrap"
  fi
  cat >"$run/server.properties" <<EOF
# Written by kafka.sh; everything not set here is Kafka 4.3.1's default.
process.roles=broker,controller
node.id=1
listeners=PLAINTEXT://$host:$port,CONTROLLER://$host:$cport$extra_listeners
advertised.listeners=PLAINTEXT://$host:$port,CONTROLLER://$host:$cport$extra_listeners
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT$extra_map
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
controller.quorum.bootstrap.servers=$host:$cport
log.dirs=$run/data
auto.create.topics.enable=true
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
EOF
  if [[ "${KAFKA_SASL:-}" == 1 ]]; then
    cat >>"$run/server.properties" <<'EOF'
sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512
listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret";
listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
EOF
  fi
  if [[ -n "${KAFKA_EXTRA_PROPERTIES:-}" ]]; then
    cat "$KAFKA_EXTRA_PROPERTIES" >>"$run/server.properties"
  fi
}

jvm() {
  "$java_bin" -Xms256m -Xmx1g -XX:+UseG1GC -Djava.awt.headless=true \
    -Dlog4j2.configurationFile="$1" -cp "$dist/*" "${@:2}"
}

cmd_start() {
  local want_port=""
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --port) want_port="${2:?--port needs a value}"; shift 2 ;;
      --port=*) want_port="${1#--port=}"; shift ;;
      *) die "start: unknown argument $1" ;;
    esac
  done
  local pid; pid="$(broker_pid)"
  if [[ -n "$pid" ]]; then
    local b; b="$(cat "$run/bootstrap")"
    if [[ -n "$want_port" && "$b" != "$host:$want_port" ]]; then
      die "already running on $b (stop it first to change the port)"
    fi
    echo "$b"; return 0
  fi
  ensure_dist
  rm -f "$run/bootstrap" "$run/kafka.pid"

  local port="" cport="" reformat=0
  if [[ -f "$run/ports" && -f "$run/data/meta.properties" ]]; then
    read -r port cport <"$run/ports"
    if [[ -n "$want_port" && "$want_port" != "$port" ]] || port_open "$port" || port_open "$cport"; then
      reformat=1
    fi
  else
    reformat=1
  fi
  if (( reformat )); then
    rm -rf "$run/data"
    if [[ -n "$want_port" ]]; then
      port_open "$want_port" && die "port $want_port is in use"
      port="$want_port"
    else
      port="$(free_port)"
    fi
    cport="$(free_port "$port")"
    echo "$port $cport" >"$run/ports"
  fi
  write_properties "$port" "$cport"

  local t0; t0=$(date +%s.%N)
  if [[ ! -f "$run/data/meta.properties" ]]; then
    local cluster_id
    cluster_id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')"
    jvm "$here/log4j2-tools.properties" kafka.tools.StorageTool format \
      --config "$run/server.properties" --cluster-id "$cluster_id" --standalone \
      >"$run/format.log" 2>&1 || { cat "$run/format.log" >&2; die "storage format failed"; }
  fi

  : >"$run/server.log"
  setsid nohup "$java_bin" -Xms256m -Xmx1g -XX:+UseG1GC -Djava.awt.headless=true \
    -Dlog4j2.configurationFile="$here/log4j2-server.properties" \
    -cp "$dist/*" kafka.Kafka "$run/server.properties" \
    >>"$run/server.log" 2>&1 </dev/null 9>&- &
  pid=$!
  echo "$pid" >"$run/kafka.pid"

  local deadline=$(( $(date +%s) + ready_timeout_s ))
  while :; do
    if ! kill -0 "$pid" 2>/dev/null; then
      tail -n 40 "$run/server.log" >&2
      die "broker exited during start-up (log: $run/server.log)"
    fi
    if grep -q 'Kafka Server started' "$run/server.log" && port_open "$port"; then
      break
    fi
    if (( $(date +%s) >= deadline )); then
      tail -n 40 "$run/server.log" >&2
      kill -TERM "$pid" 2>/dev/null || true
      die "broker not ready after ${ready_timeout_s}s (log: $run/server.log)"
    fi
    sleep 0.2
  done
  echo "$host:$port" >"$run/bootstrap"
  awk -v t0="$t0" -v t1="$(date +%s.%N)" -v pid="$pid" -v b="$host:$port" \
    'BEGIN { printf "kafka.sh: broker pid %s ready on %s in %.1fs\n", pid, b, t1 - t0 }' >&2
  echo "$host:$port"
}

cmd_stop() {
  local pid; pid="$(broker_pid)"
  if [[ -z "$pid" ]]; then
    rm -f "$run/kafka.pid" "$run/bootstrap"
    echo "stopped"; return 0
  fi
  kill -TERM "$pid"
  local i
  for i in $(seq 1 300); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "kafka.sh: broker $pid ignored SIGTERM for 60s; killing" >&2
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$run/kafka.pid" "$run/bootstrap"
  echo "stopped"
}

cmd_status() {
  local pid; pid="$(broker_pid)"
  if [[ -n "$pid" && -f "$run/bootstrap" ]]; then
    echo "running $(cat "$run/bootstrap") pid $pid"
  else
    echo "stopped"; return 3
  fi
}

cmd_bootstrap() {
  local pid; pid="$(broker_pid)"
  [[ -n "$pid" && -f "$run/bootstrap" ]] || { echo "kafka.sh: broker not running" >&2; return 3; }
  cat "$run/bootstrap"
}

with_lock() {
  mkdir -p "$run"
  exec 9>"$run/.start.lock"   # the broker is started with fd 9 closed so it never holds this
  flock 9
  "$@"
}

cmd="${1:-}"; [[ $# -gt 0 ]] && shift
case "$cmd" in
  start) with_lock cmd_start "$@" ;;
  stop) with_lock cmd_stop ;;
  status) cmd_status ;;
  bootstrap) cmd_bootstrap ;;
  sasl-bootstrap) [[ -f "$run/sasl_bootstrap" ]] && broker_pid | grep -q . && cat "$run/sasl_bootstrap" || exit 3 ;;
  clean) with_lock cmd_stop >/dev/null; rm -rf "${run:?}"/data "$run"/*.log "$run"/ports "$run"/server.properties; echo "cleaned" ;;
  fetch) ensure_dist ;;
  tools)
    [[ $# -ge 1 ]] || die "tools: need a tool class"
    ensure_dist
    exec "$java_bin" -Xmx1g -Djava.awt.headless=true \
      -Dlog4j2.configurationFile="$here/log4j2-tools.properties" -cp "$dist/*" "$@" ;;
  *) sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
