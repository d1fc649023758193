#!/usr/bin/env bash
# The house style (.clang-format, CONVENTIONS.md 12) over every hand-written
# C++ file git tracks (generated code lives in the build directory).
#   scripts/format.sh          rewrite the files in place
#   scripts/format.sh --check  list the files that differ; exit 1 if any
set -euo pipefail
cd "$(dirname "$0")/.."
fmt=${CLANG_FORMAT:-clang-format-14}
mapfile -t files < <(git ls-files -- 'src/*.cc' 'src/*.h' 'tests/*.cc' 'tests/*.h' 'tools/*.cc' 'tools/*.h')
if [[ ${1:-} == --check ]]; then
    bad=0
    for f in "${files[@]}"; do
        if ! "$fmt" --dry-run --Werror "$f" >/dev/null 2>&1; then
            echo "not formatted: $f"
            bad=1
        fi
    done
    [[ $bad == 0 ]] || echo "run scripts/format.sh to format them"
    exit $bad
fi
printf '%s\0' "${files[@]}" | xargs -0 -P "$(nproc)" -n 50 "$fmt" -i
