#!/usr/bin/env bash
# bench/share_eos.sh — share groups and transactions v2 (issue 23): ketch against Apache Kafka
# 4.3.1 in the same run.
#
#   bench/share_eos.sh   (or `make bench-share`)  prints a table, writes
#                        bench/results/share-eos-<UTC date>.json
#
# Each of SE_REPEATS rounds runs every step on ketch, then on Kafka (the table shows medians;
# the CPU stolen by the host is recorded), both brokers private to the run:
#  (1) ShareFetch throughput: a fresh share group (share.auto.offset.reset=earliest,
#      share.isolation.level=read_committed) with 1, then 4 consumers (franz-go clients,
#      bench/driver share-consume) subscribes to a fresh topic of SE_PARTITIONS partitions;
#      SE_RECORDS records of SE_RECORD_SIZE bytes are produced into it in one transaction,
#      committed once every consumer has its assignment (so no consumer prefetches records a later
#      assignment moves away, which then sit locked for 30 s); each poll's records are accepted at
#      the next poll. The rate runs from the first record delivered to the last.
#  (2) EOS: one transactional producer commits transactions of SE_TXN_RECORDS records of
#      100 bytes back to back for SE_TXN_SECONDS, rotating over the partitions, with transaction
#      version 1 (franz-go with EndTxn capped at v4: AddPartitionsToTxn, epoch kept) and version
#      2 (KIP-890: the produce adds the partition, EndTxn v5 bumps the epoch); committed
#      transactions per second (bench/driver txn, which also counts the AddPartitionsToTxn
#      requests to show which version ran).
# Ratios: ketch / Kafka for each figure, and version 2 / version 1 on each broker.
#
# Environment (defaults in brackets):
#   KETCH_BIN [build/ketch]  SE_REPEATS [3]  SE_RECORDS [200000]  SE_RECORD_SIZE [1024]
#   SE_PARTITIONS [4]  SE_TXN_SECONDS [5]  SE_TXN_RECORDS [10]  SE_SKIP_KAFKA [0]
#   SE_KETCH_ARGS [] extra ketch flags  SE_LABEL [the commit]  BENCH_KEEP [0]
# A quick run: SE_REPEATS=1 SE_RECORDS=20000 SE_TXN_SECONDS=2.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
repeats="${SE_REPEATS:-3}"
records="${SE_RECORDS:-200000}"
rsize="${SE_RECORD_SIZE:-1024}"
parts="${SE_PARTITIONS:-4}"
txn_s="${SE_TXN_SECONDS:-5}"
txn_records="${SE_TXN_RECORDS:-10}"
skip_kafka="${SE_SKIP_KAFKA:-0}"
read -r -a ketch_extra <<<"${SE_KETCH_ARGS:-}"

bench_init share-eos
export KAFKA_REF_RUN="$work/kafka"  # our own reference broker, not the shared one
read -r steal_start all_start < <(cpu_steal)

pid=""; kafka_up=0
cleanup() {
  set +e
  [[ -n "$pid" ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  (( kafka_up )) && "$kafka_sh" stop >/dev/null 2>&1
  remove_work
}
trap cleanup EXIT
trap 'exit 130' INT TERM

build_tools

"$work/bin/ketch" --listen 127.0.0.1:0 --data-dir "$work/ketch-data" --ready-file "$work/ready" \
  --log-level warn "${ketch_extra[@]}" >"$work/logs/ketch.log" 2>&1 &
pid=$!
for _ in $(seq 1 600); do [[ -s "$work/ready" ]] && break; sleep 0.05; done
[[ -s "$work/ready" ]] || die "ketch not ready: $(tail -n 5 "$work/logs/ketch.log")"
declare -A boot=([ketch]="$(head -n1 "$work/ready")")
brokers=(ketch)
if [[ "$skip_kafka" != 1 ]]; then
  kafka_up=1
  boot[kafka]="$("$kafka_sh" start)" || die "the reference Kafka did not start"
  brokers+=(kafka)
fi

# record BROKER STEP JSON: one measurement line.
record() { printf '{"broker":"%s","step":"%s","result":%s}\n' "$1" "$2" "$3" >>"$m"; }

for r in $(seq 1 "$repeats"); do
  for b in "${brokers[@]}"; do
    bs="${boot[$b]}"
    for c in 1 4; do
      t="share-$r-$c"
      "$drv" create-topic "$bs" "$t" "$parts" >/dev/null || die "create $t on $b"
      say "round $r $b: share-consume, $c consumer(s) ($records records)"
      out="$("$drv" share-consume "$bs" "$t" -records "$records" -record-size "$rsize" -consumers "$c" \
        -group "sg$c-$r")" || die "share-consume ($c) failed on $b"
      record "$b" "share_$c" "$out"
      "$drv" delete-topic "$bs" "$t" >/dev/null || true
    done
    t="txn-$r"
    "$drv" create-topic "$bs" "$t" "$parts" >/dev/null || die "create $t on $b"
    for v in 1 2; do
      say "round $r $b: transactions, version $v ($txn_s s)"
      out="$("$drv" txn "$bs" "$t" -seconds "$txn_s" -records-per-txn "$txn_records" -partitions "$parts" \
        -version "$v" -transactional-id "bench-$r-$v")" || die "txn v$v failed on $b"
      record "$b" "txn_v$v" "$out"
    done
    "$drv" delete-topic "$bs" "$t" >/dev/null || true
  done
done

read -r steal_end all_end < <(cpu_steal)
mkdir -p "$here/results"
out="$here/results/share-eos-$(date -u +%Y-%m-%dT%H%MZ).json"
python3 - "$m" "$out" "$((steal_end - steal_start))" "$((all_end - all_start))" \
  "${SE_LABEL:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}" \
  "$records" "$rsize" "$parts" "$txn_s" "$txn_records" "$repeats" <<'EOF'
import json, statistics, sys
path, out, steal, total, label = sys.argv[1:6]
records, rsize, parts, txn_s, txn_records, repeats = map(float, sys.argv[6:12])
rows = [json.loads(l) for l in open(path)]
def med(broker, step, key):
    v = [r["result"][key] for r in rows if r["broker"] == broker and r["step"] == step]
    return statistics.median(v) if v else None
figs = {}
for step, key, unit in [("share_1", "mib_s", "MiB/s"), ("share_4", "mib_s", "MiB/s"),
                        ("txn_v1", "txn_s", "txn/s"), ("txn_v2", "txn_s", "txn/s")]:
    figs[step] = {b: med(b, step, key) for b in ("ketch", "kafka")}
    figs[step]["unit"] = unit
adds = {f"{b}_{s}": med(b, s, "add_partitions_requests") for b in ("ketch", "kafka") for s in ("txn_v1", "txn_v2")}
ratio = lambda a, b: round(a / b, 2) if a and b else None
steal_pct = round(100 * int(steal) / int(total), 2) if int(total) else 0
result = {"label": label, "records": int(records), "record_size": int(rsize), "partitions": int(parts),
          "txn_seconds": txn_s, "records_per_txn": int(txn_records), "repeats": int(repeats),
          "steal_pct": steal_pct, "medians": figs, "add_partitions_requests": adds,
          "ketch_over_kafka": {s: ratio(f["ketch"], f["kafka"]) for s, f in figs.items()},
          "v2_over_v1": {b: ratio(figs["txn_v2"][b], figs["txn_v1"][b]) for b in ("ketch", "kafka")},
          "runs": rows}
json.dump(result, open(out, "w"), indent=1)
names = {"share_1": "ShareFetch, 1 consumer", "share_4": "ShareFetch, 4 consumers",
         "txn_v1": "EOS transactions, version 1", "txn_v2": "EOS transactions, version 2"}
fmt = lambda v: "-" if v is None else f"{v:.1f}"
print(f"{'step':32} {'ketch':>10} {'Kafka':>10} {'ketch/Kafka':>12}")
for s, f in figs.items():
    print(f"{names[s] + ' (' + f['unit'] + ')':32} {fmt(f['ketch']):>10} {fmt(f['kafka']):>10} "
          f"{fmt(result['ketch_over_kafka'][s]) if result['ketch_over_kafka'][s] else '-':>12}")
print(f"version 2 / version 1: ketch {result['v2_over_v1']['ketch']}, Kafka {result['v2_over_v1']['kafka']}")
print(f"AddPartitionsToTxn requests (median per run): {adds}")
print(f"medians of {int(repeats)} rounds; CPU stolen by the host during the run: {steal_pct}%; written {out}")
EOF
