#!/usr/bin/env bash
# Builds target/driver.jar (+ target/lib/) when missing or older than pom.xml or a source,
# then target/driver.jsa: a class-data-sharing archive of the classes the clients load
# (recorded from the driver's cds-warmup command), which halves the JVM's start-up.
# Offline (`mvn -o`) when the local Maven repository already has what the pom needs.
# Concurrent callers wait for one build (flock on target/.build.lock).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
jar="$here/target/driver.jar"
jsa="$here/target/driver.jsa"
fresh() {
  [[ -f "$jar" && -d "$here/target/lib" && -f "$jsa" && ! "$jar" -nt "$jsa" ]] &&
    [[ -z "$(find "$here/pom.xml" "$here/src" -newer "$jar" -type f -print -quit)" ]]
}
fresh && exit 0
mkdir -p "$here/target"
exec 9>"$here/target/.build.lock"
flock 9
fresh && exit 0
cd "$here"
if [[ ! -f "$jar" || -n "$(find pom.xml src -newer "$jar" -type f -print -quit)" ]]; then
  mvn -q -B -o package -DskipTests >/dev/null 2>&1 || mvn -q -B package -DskipTests >&2
fi
# The archive is tied to this exact class path; it is remade with every jar.
rm -f "$jsa" "$jsa.tmp"
"${JAVA:-java}" -XX:ArchiveClassesAtExit="$jsa.tmp" -Xlog:disable -Xlog:all=error:stderr \
  -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$jar:$here/target/lib/*" \
  ketch.Driver --bootstrap 127.0.0.1:1 cds-warmup '{}' >/dev/null
mv "$jsa.tmp" "$jsa"
