#!/usr/bin/env bash
# Installs the Debian packages listed in the given files (default:
# deps/apt.txt, what the broker needs to build) that are missing.
# Idempotent and quiet when everything is there (so `make run` stays fast).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
lists=("$@")
[ ${#lists[@]} -eq 0 ] && lists=("$here/deps/apt.txt")
mapfile -t wanted < <(cat "${lists[@]}" | grep -vE '^\s*(#|$)')
missing=()
for p in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
