#!/usr/bin/env bash
# The house style (.clang-format, CONVENTIONS.md 12) over every hand-written
# C++ file git tracks (generated code lives in the build directory).
#   scripts/format.sh          rewrite the files in place
#   scripts/format.sh --check  list the files that differ; exit 1 if any
set -euo pipefail
cd "$(dirname "$0")/.."
fmt=${CLANG_FORMAT:-clang-format-14}
mapfile -t files < <(git ls-files -- 'src/*.cc' 'src/*.h' 'tests/*.cc' 'tests/*.h' 'tools/*.cc' 'tools/*.h')
command -v "$fmt" >/dev/null || { echo "format.sh: $fmt not found (deps/apt-test.txt)" >&2; exit 2; }
if [[ ${1:-} == --check ]]; then
    # Batches of files per clang-format process (one process per file took
    # ~35 s of make test); --Werror names each differing file in its
    # "FILE:LINE:COL: error:" lines.
    mapfile -t bad < <(printf '%s\0' "${files[@]}" |
        xargs -0 -P "$(nproc)" -n 100 "$fmt" --dry-run --Werror 2>&1 >/dev/null |
        sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: .*/\1/p' | sort -u)
    for f in "${bad[@]}"; do echo "not formatted: $f"; done
    [[ ${#bad[@]} == 0 ]] || { echo "run scripts/format.sh to format them"; exit 1; }
    exit 0
fi
printf '%s\0' "${files[@]}" | xargs -0 -P "$(nproc)" -n 50 "$fmt" -i
