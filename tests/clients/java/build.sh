#!/usr/bin/env bash
# Builds target/driver.jar (+ target/lib/) when missing or older than pom.xml or a source.
# Offline (`mvn -o`) when the local Maven repository already has what the pom needs.
# Concurrent callers wait for one build (flock on target/.build.lock).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
jar="$here/target/driver.jar"
fresh() {
  [[ -f "$jar" && -d "$here/target/lib" ]] &&
    [[ -z "$(find "$here/pom.xml" "$here/src" -newer "$jar" -type f -print -quit)" ]]
}
fresh && exit 0
mkdir -p "$here/target"
exec 9>"$here/target/.build.lock"
flock 9
fresh && exit 0
cd "$here"
mvn -q -B -o package -DskipTests >/dev/null 2>&1 || mvn -q -B package -DskipTests >&2
