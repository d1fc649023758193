#!/usr/bin/env python3
"""Fails when a source file includes a module its layer may not see.

The layers and what each may include are ARCHITECTURE.md's (shared/design),
written down once here as a table: a module may include itself and the modules
listed for it. The build enforces the same rule with per-module include roots
(cmake/ketch_module.cmake: a module sees only the headers of what it links);
this check also catches a CMake change that links a module upward, and names
the offending line.

Usage: check-layers.py [SRC_DIR]   (default: the repository's src/)
"""

import re
import sys
from pathlib import Path

# module -> the modules below it that it may include (besides itself).
ALLOWED = {
    "base": set(),
    "record": {"base"},
    "protocol": {"base"},
    "io": {"base"},
    # Scripted faults (--faults): rules and their matching, domain types only;
    # the broker consults them, the console lists and adds them (faults.md).
    "fault": {"base"},
    "log": {"base", "io", "record"},
    "meta": {"base", "io"},
    "group": {"base", "meta"},
    "txn": {"base", "meta"},
    "share": {"base", "meta"},
    "security": {"base", "meta"},
    # Fetch sessions (KIP-227): the session cache, domain types only.
    "fetch": {"base"},
    "net": {"base", "protocol", "security"},
    "partition": {"base", "io", "record", "log", "meta", "txn"},
    # Cluster mode (docs/design/cluster.md): the S3 client, and PostgreSQL
    # (membership, schema). Domain types only; the broker reads the live
    # brokers from cluster/ for Metadata and DescribeCluster.
    "objstore": {"base", "http"},
    "cluster": {"base"},
    # The shared log: what needs both engines (objects written and read, the
    # sweeper), the partition service's shared storage engine (the second
    # implementation of partition/storage.h) and the topics in PostgreSQL (a meta::store).
    "shared": {"base", "io", "record", "log", "meta", "partition", "cluster", "objstore"},
    "tenant": {"base", "meta", "security"},
    "inspect": {"base", "protocol"},
    # KIP-714 client telemetry: the subscription state and the pushed metrics,
    # served by broker (handlers 71, 72) and read by the console.
    "telemetry": {"base", "record"},
    "registry": {"base", "record", "io", "meta", "security"},
    "registry_http": {"base", "meta", "security", "http", "registry"},
    "broker": {"base", "record", "protocol", "io", "log", "meta", "group", "share", "txn", "security", "net", "partition",
               "tenant", "inspect", "telemetry", "fault", "fetch", "cluster"},
    "http": {"base"},
    "cli": {"base", "record", "protocol", "security"},
    # The console reaches the broker only through net::request_handler (the
    # dispatcher, handed over by app): it includes no broker header.
    "console": {"base", "record", "protocol", "net", "inspect", "http", "telemetry", "fault", "tenant", "meta", "security"},
    "app": None,  # the wiring: may include every module
}

# Single headers a module may include from a layer it otherwise may not:
# (module, path prefix). The group layer reads the clients' embedded
# ConsumerProtocol payloads with the generated types of Kafka's schemas
# (issue 19; docs/design/group_coordinator.md), not with the request codec.
EXCEPTIONS = [
    ("group", "protocol/messages/consumer_protocol_"),
]

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([a-z_]+)/')


def check(src: Path) -> list[str]:
    modules = {p.name for p in src.iterdir() if p.is_dir()}
    problems = []
    for mod in sorted(modules):
        if mod not in ALLOWED:
            problems.append(f"src/{mod}: a module the layer table does not know (add it to {__file__})")
            continue
        allowed = ALLOWED[mod]
        for f in sorted((src / mod).rglob("*")):
            if f.suffix not in (".h", ".cc", ".cpp", ".hpp", ".inc"):
                continue
            for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
                m = INCLUDE.match(line)
                if not m or m.group(1) not in modules or m.group(1) == mod:
                    continue
                path = line.split('"')[1] if '"' in line else line.split("<")[-1].rstrip(">")
                if any(mod == em and path.startswith(prefix) for em, prefix in EXCEPTIONS):
                    continue
                if allowed is not None and m.group(1) not in allowed:
                    problems.append(f"{f.relative_to(src.parent)}:{n}: {mod} may not include {m.group(1)}/ "
                                    f"({line.strip()})")
    return problems


def main() -> int:
    src = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "src"
    problems = check(src)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} include(s) break the layering (ARCHITECTURE.md)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
