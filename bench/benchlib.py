"""What the Python benches share: the host's CPU steal and load, writing a result, and the
client suite's broker fixtures (BrokerProcess) for the benches that start brokers."""

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def clients_conftest():
    """tests/clients/conftest.py as a module (BrokerProcess, _ketch_binary, eventually)."""
    spec = importlib.util.spec_from_file_location("ketch_clients_conftest", ROOT / "tests" / "clients" / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
