#!/usr/bin/env python3
"""Prints, last, why each test of ctest's last run failed: the lines that say it
(pytest's FAILED/ERROR summary, `E` lines and where they were raised, gtest's
Failure lines, the chaos test's phases, a timeout), at most a few per test.
CI keeps only the tail of
`make test`'s output; without this the tail names a failed test and not why.

Usage: ctest-failures.py BUILD_DIR"""

import re
import sys
from pathlib import Path

TELLING = re.compile(r"^(FAILED |ERROR |E +\S|\S+\.py:\d+: |chaos: |.*Failure$|.*Timeout|.*\*\*\*Exception|AssertionError)")
PER_TEST = 16


def sections(log):
    """Test name -> its output, from ctest's LastTest.log."""
    out, name, lines = {}, None, None
    for line in log.splitlines():
        m = re.match(r"^\d+/\d+ Test: (\S+)$", line)
        if m:
            name, lines = m.group(1), None
        elif line.startswith("Output:") and name:
            lines = []
        elif line == "<end of output>" and name is not None and lines is not None:
            out[name] = lines
            name, lines = None, None
        elif lines is not None and not set(line) <= {"-"}:
            lines.append(line)
    return out


def telling(lines):
    picked = [line for line in lines if TELLING.match(line)]
    if not picked:
        picked = lines[-PER_TEST:]
    # A long run of `E` lines (an exception carrying a log) keeps its first and last lines.
    out, run = [], []
    for line in picked + [""]:
        if line.startswith("E "):
            run.append(line)
            continue
        out += run if len(run) <= 6 else run[:3] + ["E   ... (%d lines)" % (len(run) - 6)] + run[-3:]
        run = []
        if line:
            out.append(line)
    return [line[:300] for line in out[-PER_TEST:]]


def main():
    tmp = Path(sys.argv[1]) / "Testing" / "Temporary"
    failed_log = tmp / "LastTestsFailed.log"
    if not failed_log.exists():
        return
    failed = [line.split(":", 1)[1] for line in failed_log.read_text().splitlines() if ":" in line]
    log = tmp / "LastTest.log"
    outputs = sections(log.read_text(errors="replace")) if log.exists() else {}
    print("\n== why the failed tests failed (full output above) ==")
    for name in failed:
        print("-- %s" % name)
        for line in telling(outputs.get(name, ["(no output recorded)"])):
            print("   " + line)
    print("== failed: %s" % " ".join(failed))


if __name__ == "__main__":
    main()
