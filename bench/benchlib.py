"""What the Python benches share: the host's CPU steal and load, and writing a result."""

import json


def cpu_ticks():
    """(stolen, total) CPU ticks so far (/proc/stat, first line)."""
    f = [int(x) for x in open("/proc/stat").readline().split()[1:9]]
    return f[7], sum(f)


def load():
    """The 1-minute load average."""
    return float(open("/proc/loadavg").read().split()[0])


def write_result(out, path=None):
    """Prints `out` as indented JSON and writes it to `path` too when given."""
    text = json.dumps(out, indent=1)
    print(text)
    if path:
        with open(path, "w") as f:
            f.write(text + "\n")
