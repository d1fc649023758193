"""What every Python-written driver shares: the command line, JSON in and out,
base64 for bytes, and the "unsupported" answer (see tests/clients/DRIVERS.md).

    <driver> --bootstrap HOST:PORT <command> '<json args>'
"""

import argparse
import base64
import json
import sys

# Kafka's internal topics (org.apache.kafka.common.internals.Topic); list-topics
# leaves them out, as the Java Admin's listTopics() does by default.
INTERNAL_TOPICS = frozenset({"__consumer_offsets", "__transaction_state", "__share_group_state"})


class Unsupported(Exception):
    """The library cannot do this command; the driver answers {"unsupported": why}."""


def b64d(s):
    """base64 text (or None) -> bytes (or None)."""
    return None if s is None else base64.b64decode(s)


def b64e(b):
    """bytes (or None) -> base64 text (or None)."""
    return None if b is None else base64.b64encode(bytes(b)).decode("ascii")


def passthrough_config(args):
    """The optional "config" object of any command: client properties as given."""
    return dict(args.get("config") or {})


def main(commands, description):
    """Parses the command line, runs commands[command](bootstrap, args) and prints its
    result as one JSON object. Unsupported -> {"unsupported": ...} with exit 0; any
    other exception propagates (traceback on stderr, non-zero exit)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--bootstrap", required=True, help="HOST:PORT of a broker")
    ap.add_argument("command", choices=sorted(commands))
    ap.add_argument("args", nargs="?", default="{}", help="JSON object of arguments")
    opts = ap.parse_args()
    args = json.loads(opts.args)
    if not isinstance(args, dict):
        ap.error("args must be a JSON object")
    try:
        out = commands[opts.command](opts.bootstrap, args)
    except Unsupported as e:
        out = {"unsupported": str(e)}
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
