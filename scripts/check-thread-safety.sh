#!/bin/sh
# Compiles the group and share coordinators' sources with clang's thread-safety
# analysis (-Wthread-safety as an error): every GUARDED_BY field read or
# written without its mutex, every REQUIRES function called without it, and
# every lock taken twice fails the check (base/mutex.h; docs/design/
# group_coordinator.md, "Threads and locks"). Syntax only: nothing is built.
# First it makes sure the analysis is on at all: a file that breaks a lock
# rule must fail, or the check could pass with the annotations compiled away.
#
# Usage: check-thread-safety.sh SRC_DIR BUILD_DIR [CLANGXX]
#   BUILD_DIR is a configured build (its include roots and generated headers).
#   JOBS (default 2): files compiled at once.
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
flags="-std=c++20 -fsyntax-only -Wthread-safety -Werror=thread-safety"
for m in base io meta protocol group share fetch; do flags="$flags -I$build/include_roots/$m"; done
flags="$flags -I$build/gen"

probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
cat > "$probe/probe.cc" <<'CC'
#include "base/mutex.h"
struct probe {
    ketch::mutex mu;
    int x GUARDED_BY(mu) = 0;
    int read_without_lock() { return x; }
};
CC
if "$cxx" $flags "$probe/probe.cc" 2>/dev/null; then
    echo "check-thread-safety: $cxx accepted a read of a GUARDED_BY field without its lock: the analysis is off" >&2
    exit 1
fi

# The group coordinator, the share coordinator (docs/design/share_groups.md) and
# the fetch session cache (docs/design/fetch_sessions.md).
if ls "$src"/src/group/*.cc "$src"/src/share/*.cc "$src"/src/fetch/*.cc | xargs -P "${JOBS:-2}" -n 1 "$cxx" $flags; then
    echo "check-thread-safety: $(ls "$src"/src/group/*.cc "$src"/src/share/*.cc "$src"/src/fetch/*.cc | wc -l) files of src/group, src/share and src/fetch pass"
else
    echo "check-thread-safety: src/group, src/share or src/fetch breaks a lock rule (above)" >&2
    exit 1
fi
