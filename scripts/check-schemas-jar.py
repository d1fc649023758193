#!/usr/bin/env python3
"""Fails unless schemas/kafka is exactly the message definitions inside the pinned
kafka-clients jar (issue 23: the "Kafka 4.3.1 versions" column of
docs/compatibility.md is read from that jar, not typed by hand).

The chain: this check (every common/message/*.json of the jar byte for byte in
schemas/kafka, nothing more, nothing less) -> tools/kgen generates the protocol from
schemas/kafka at build time -> ketch-api-table prints each API's validVersions from it
-> the ctest docs_compatibility_table fails when docs/compatibility.md's table differs.

The jar is the Java client driver's (tests/clients/java/pom.xml pins its version;
scripts/install-test-deps.sh resolves it from Maven Central into target/lib).

Usage: check-schemas-jar.py [REPO_ROOT]
"""

import re
import sys
import zipfile
from pathlib import Path

# Files of ours in schemas/kafka that are not in the jar.
OURS = {"SOURCE.md"}
# The jar's common/message/README.md is kept as README.kafka.md.
RENAMED = {"README.md": "README.kafka.md"}


def pinned_version(root):
    pom = (root / "tests" / "clients" / "java" / "pom.xml").read_text()
    m = re.search(r"<artifactId>kafka-clients</artifactId>\s*<version>([^<]+)</version>", pom)
    if not m:
        sys.exit("tests/clients/java/pom.xml pins no kafka-clients version")
    return m.group(1)


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)
    version = pinned_version(root)
    jar = root / "tests" / "clients" / "java" / "target" / "lib" / ("kafka-clients-%s.jar" % version)
    if not jar.exists():
        sys.exit("%s is missing: run scripts/install-test-deps.sh" % jar)
    expected = {}
    with zipfile.ZipFile(jar) as z:
        for name in z.namelist():
            if name.startswith("common/message/") and not name.endswith("/"):
                base = name[len("common/message/"):]
                expected[RENAMED.get(base, base)] = z.read(name)
    schemas = root / "schemas" / "kafka"
    have = {p.name: p.read_bytes() for p in schemas.iterdir() if p.is_file() and p.name not in OURS}
    problems = ["missing from schemas/kafka: " + n for n in sorted(set(expected) - set(have))]
    problems += ["in schemas/kafka but not in the jar: " + n for n in sorted(set(have) - set(expected))]
    problems += ["differs from the jar's: " + n for n in sorted(set(have) & set(expected)) if have[n] != expected[n]]
    if len([n for n in expected if n.endswith(".json")]) < 150:
        problems.append("the jar holds only %d message definitions" % len(expected))
    if problems:
        print("schemas/kafka is not kafka-clients %s's common/message:" % version, file=sys.stderr)
        for p in problems:
            print("  " + p, file=sys.stderr)
        return 1
    print("schemas/kafka is kafka-clients %s's common/message (%d files)" % (version, len(expected)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
