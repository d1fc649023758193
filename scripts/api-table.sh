#!/usr/bin/env bash
# Regenerates (or with --check, verifies) the API table in docs/compatibility.md
# between the BEGIN/END markers, from `ketch-api-table`.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
check=0
if [ "${1:-}" = "--check" ]; then check=1; shift; fi
tool="${1:-$root/build/ketch-api-table}"
doc="$root/docs/compatibility.md"
table="$("$tool")"
new="$(awk -v table="$table" '
  /<!-- BEGIN api-table -->/ { print; print table; skip=1; next }
  /<!-- END api-table -->/ { skip=0 }
  !skip { print }' "$doc")"
if [ $check = 1 ]; then
  if [ "$new" != "$(cat "$doc")" ]; then
    echo "docs/compatibility.md is out of date: run scripts/api-table.sh" >&2
    diff <(echo "$new") "$doc" >&2 || true
    exit 1
  fi
  echo "docs/compatibility.md API table matches the handler registry"
else
  printf '%s\n' "$new" > "$doc"
fi
