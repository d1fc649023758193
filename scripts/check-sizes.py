#!/usr/bin/env python3
"""Fails when hand-written code in src/ grows past the house limits (issue 19):
no file over 400 lines, no function over 80 lines. Generated code
(build/gen) and tests are not under src/, so they are not looked at.

Usage: check-sizes.py SRC_DIR
Function lengths come from lizard (pinned in tests/clients/requirements.txt):
its `length` counts a function's lines from its signature to its closing brace.
"""
import pathlib
import sys

import lizard

MAX_FILE_LINES = 400
MAX_FUNCTION_LINES = 80
SUFFIXES = {".h", ".cc", ".cpp"}


def main() -> int:
    src = pathlib.Path(sys.argv[1])
    problems = []
    for path in sorted(p for p in src.rglob("*") if p.suffix in SUFFIXES):
        rel = path.relative_to(src.parent)
        text = path.read_text(encoding="utf-8", errors="replace")
        lines = text.count("\n")
        if lines > MAX_FILE_LINES:
            problems.append(f"{rel}: {lines} lines (limit {MAX_FILE_LINES})")
        for fn in lizard.analyze_file.analyze_source_code(str(path), text).function_list:
            if fn.length > MAX_FUNCTION_LINES:
                problems.append(f"{rel}:{fn.start_line}: {fn.name} has {fn.length} lines (limit {MAX_FUNCTION_LINES})")
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} place(s) over the size limits: split them into named steps")
        return 1
    print("sizes: every file and function within the limits")
    return 0


if __name__ == "__main__":
    sys.exit(main())
