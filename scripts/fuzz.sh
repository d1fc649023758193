#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer targets of tests/fuzz with clang-14 in their
# own build directory and runs each for a bounded time.
#
#   FUZZ_SECONDS=60      seconds per target (libFuzzer -max_total_time)
#   FUZZ_TARGETS="..."   which targets (default: all of them)
#   FUZZ_BUILD_DIR=...   build directory (default: build-fuzz at the repo root)
#   JOBS=N               build parallelism (default: nproc)
#   FUZZ_SEEDS_BIN=...   a make_seeds already built (the g++ build's fuzz_make_seeds):
#                        then only the two fuzz targets are built with clang (how
#                        `make test` runs this script, as the ctest `fuzz_libfuzzer`)
#
# The corpus each run grows is kept in $FUZZ_BUILD_DIR/fuzz/corpus/<target>;
# it starts from seeds make_seeds writes (every API/version, real batches) and
# from any committed inputs in tests/fuzz/regressions/<target>/. A crash, leak,
# timeout or out-of-memory leaves its input in $FUZZ_BUILD_DIR/fuzz/artifacts/
# and makes this script exit non-zero; reproduce it with
#   $FUZZ_BUILD_DIR/fuzz/<target> <artifact file>
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
build="${FUZZ_BUILD_DIR:-$repo/build-fuzz}"
seconds="${FUZZ_SECONDS:-60}"
targets="${FUZZ_TARGETS:-fuzz_request_decode fuzz_batch_validate}"
jobs="${JOBS:-$(nproc)}"

"$repo/scripts/install-deps.sh" "$repo/deps/apt.txt" "$repo/deps/apt-test.txt"
if ! command -v clang++-14 >/dev/null; then
  echo "fuzz.sh: clang++-14 not found (deps/apt-test.txt lists clang-14 and libclang-rt-14-dev)" >&2
  exit 1
fi

if [ ! -f "$build/build.ninja" ]; then
  # No -DNDEBUG: assertions stay on while fuzzing. -O1 and line tables keep the
  # build cheap and the stack traces readable.
  cmake -S "$repo" -B "$build" -G Ninja \
    -DCMAKE_CXX_COMPILER=clang++-14 \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
    -DKETCH_FUZZ=ON -DKETCH_TESTS=OFF
fi
start=$(date +%s)
if [ -n "${FUZZ_SEEDS_BIN:-}" ]; then
  cmake --build "$build" -j "$jobs" --target fuzz_request_decode fuzz_batch_validate
  make_seeds="$FUZZ_SEEDS_BIN"
else
  cmake --build "$build" -j "$jobs" --target fuzz_targets
  make_seeds="$build/fuzz/make_seeds"
fi
echo "fuzz.sh: build took $(( $(date +%s) - start )) s"

out="$build/fuzz"
rm -rf "$out/seeds"
mkdir -p "$out/seeds/fuzz_request_decode" "$out/seeds/fuzz_batch_validate"
"$make_seeds" "$out/seeds/fuzz_request_decode" "$out/seeds/fuzz_batch_validate" >/dev/null
mkdir -p "$out/artifacts"

failed=()
for t in $targets; do
  corpus="$out/corpus/$t"
  mkdir -p "$corpus"
  dirs=("$corpus" "$out/seeds/$t")
  [ -d "$repo/tests/fuzz/regressions/$t" ] && dirs+=("$repo/tests/fuzz/regressions/$t")
  echo "fuzz.sh: running $t for ${seconds} s"
  # -rss_limit_mb / -malloc_limit_mb: a decoder that allocates without bound
  # is a finding, not a slow run. -timeout: a decoder that hangs is too.
  if ! "$out/$t" "${dirs[@]}" \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 \
      -max_len=65536 -print_final_stats=1 \
      -artifact_prefix="$out/artifacts/$t-" 2>"$out/$t.log"; then
    failed+=("$t")
    tail -n 60 "$out/$t.log" >&2
  else
    grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+[[:space:]]+DONE)' "$out/$t.log" || true
  fi
done

if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz.sh: FAILED: ${failed[*]} (inputs in $out/artifacts/, logs in $out/<target>.log)" >&2
  exit 1
fi
echo "fuzz.sh: all targets ran ${seconds} s without a finding"
