#!/bin/sh
# Compiles the group coordinator's sources with clang's thread-safety
# analysis (-Wthread-safety as an error): every GUARDED_BY field read or
# written without its mutex, every REQUIRES function called without it, and
# every lock taken twice fails the check (base/mutex.h; docs/design/
# group_coordinator.md, "Locks"). Syntax only: nothing is built.
#
# Usage: check-thread-safety.sh SRC_DIR BUILD_DIR [CLANGXX]
#   BUILD_DIR is a configured build (its include roots and generated headers).
set -eu
src=$1
build=$2
cxx=${3:-${CLANGXX:-}}
if [ -z "$cxx" ]; then
    for c in clang++ clang++-14; do
        if command -v "$c" >/dev/null 2>&1; then cxx=$c; break; fi
    done
fi
if [ -z "$cxx" ]; then
    echo "check-thread-safety: no clang++ (deps/apt-test.txt installs clang-14)" >&2
    exit 1
fi
roots=""
for m in base io meta protocol group; do roots="$roots -I$build/include_roots/$m"; done
status=0
for f in "$src"/src/group/*.cc; do
    if ! "$cxx" -std=c++20 -fsyntax-only -Wthread-safety -Werror=thread-safety \
        -Wno-unknown-warning-option $roots -I"$build/gen" "$f"; then
        echo "check-thread-safety: $f" >&2
        status=1
    fi
done
[ $status -eq 0 ] && echo "check-thread-safety: $(ls "$src"/src/group/*.cc | wc -l) files of src/group pass"
exit $status
