#!/bin/bash
# Instruction counts of a fixed produce/fetch workload, for comparing two
# builds of the broker (docs/design/partition_service.md, "Cost").
#   bench/callgrind/run.sh BROKER_BINARY OUT_DIR [N]
# Runs the broker under callgrind, drives N (default 2000) synchronous
# acks=all produces and ~N one-batch fetches (drive.py, confluent-kafka from
# the tests' venv), stops the broker and prints the totals and the
# inclusive cost of the produce and fetch handlers.
bin=$1; d=$2; n=${3:-2000}
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-$here/../../.venv/bin/python}
rm -rf "$d"; mkdir -p "$d"
valgrind --tool=callgrind --callgrind-out-file="$d/cg.out" "$bin" --listen 127.0.0.1:0 --data-dir "$d/data" \
    --ready-file "$d/ready" --schema-registry-addr 127.0.0.1:0 > "$d/broker.log" 2>&1 &
vp=$!
for _ in $(seq 600); do [ -s "$d/ready" ] && break; sleep 0.5; done
"$py" "$here/drive.py" "$(cat "$d/ready")" "$n"
kill -TERM $vp; wait $vp
callgrind_annotate "$d/cg.out" 2>/dev/null | grep -m1 "PROGRAM TOTALS"
callgrind_annotate --inclusive=yes "$d/cg.out" 2>/dev/null |
    grep -E "00_produce.cc:ketch::broker::handle_produce\(|01_fetch.cc:ketch::broker::\(anonymous namespace\)::fetch_unthrottled" |
    head -2 | cut -c1-160
