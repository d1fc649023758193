#!/usr/bin/env python3
"""Where a broker's threads wait: off-CPU time per thread and per kernel stack, from
`perf record -e sched:sched_switch -g -p PID` (run during the workload), then
`perf script -i perf.data > switches.txt`:

    bench/tools/offcpu.py switches.txt

One line per thread, busiest first: its switch-outs by kind and state (epoll_wait:S is a
reactor waiting for work, futex:S a lock or a pool's queue, pread64:D / sendfile:D a read
waiting for the disk, fsync:D a flush) and its longest off-CPU periods. Used for the cold
reads (docs/performance.md "Cold reads"): a reactor should wait in epoll_wait, never on the
disk."""

import collections
import re
import sys

HEADER = re.compile(r"^\s*(\S+)\s+(\d+)\s+\[\d+\]\s+([\d.]+): sched:sched_switch: prev_comm=\S+ prev_pid=(\d+) "
                    r".*prev_state=(\S+) ==> next_comm=\S+ next_pid=(\d+)")
KINDS = ("epoll_wait", "futex", "pread64", "sendfile", "fsync", "fdatasync", "write", "io_uring", "nanosleep",
         "accept", "read")


def kind(frames):
    joined = " ".join(frames)
    for k in KINDS:
        if k in joined:
            return k
    return frames[2] if len(frames) > 2 else "?"


def main(path):
    out = {}  # tid -> (time switched out, kind)
    kinds = collections.defaultdict(collections.Counter)
    waits = collections.defaultdict(list)
    for event in open(path, errors="replace").read().split("\n\n"):
        lines = event.strip().split("\n")
        m = HEADER.match(lines[0]) if lines else None
        if not m:
            continue
        t, prev, state, nxt = float(m.group(3)), int(m.group(4)), m.group(5), int(m.group(6))
        k = kind([line.split()[1] for line in lines[1:] if len(line.split()) > 1]) + ":" + state
        kinds[prev][k] += 1
        out[prev] = (t, k)
        if nxt in out:
            t0, k0 = out.pop(nxt)
            waits[nxt].append((t - t0, k0))
    for tid, c in sorted(kinds.items(), key=lambda x: -sum(x[1].values())):
        longest = [(round(d * 1000, 1), k) for d, k in sorted(waits[tid], reverse=True)[:6]]
        print(tid, dict(c.most_common(5)), "longest ms:", longest)


if __name__ == "__main__":
    main(sys.argv[1])
