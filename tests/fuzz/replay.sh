#!/usr/bin/env bash
# ctest `fuzz_replay`: writes the seed corpora, then runs both fuzz targets
# (built with g++ against replay_main.cc) over the seeds, the committed
# regressions and a fixed number of deterministic mutations of each.
#   replay.sh BIN_DIR WORK_DIR MUTATIONS
set -euo pipefail
bin="$1"; work="$2"; mutations="$3"
here="$(cd "$(dirname "$0")" && pwd)"
rm -rf "$work" && mkdir -p "$work/request_decode" "$work/batch_validate"
cd "$work"
"$bin/fuzz_make_seeds" request_decode batch_validate >/dev/null
for target in fuzz_request_decode fuzz_batch_validate; do
  dirs=("${target#fuzz_}")
  [[ -d "$here/regressions/$target" ]] && dirs+=("$here/regressions/$target")
  "$bin/${target}_replay" --mutations "$mutations" "${dirs[@]}"
done
