"""A child process that reports on stdout in JSON lines, read on a thread of its own; lines
that are not JSON are skipped. The Java share consumers (tests/clients/test_share_groups.py,
tests/cluster/test_share_failover.py, test_share_store_starved.py) and Kafka's verification
tools (tests/clients/test_kafka_tools.py) and the Streams apps (test_streams_groups.py) are built on it. tests/cluster imports it through
tests/clients/conftest.py, which puts this directory on sys.path."""

import json
import subprocess
import threading


class JsonLinesProcess:
    def __init__(self, proc):
        self.proc = proc
        self.lines, self.lock = [], threading.Lock()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for raw in self.proc.stdout:
            try:
                line = json.loads(raw)
            except ValueError:
                continue
            with self.lock:
                self.lines.append(line)

    def snapshot(self):
        """The lines read so far."""
        with self.lock:
            return list(self.lines)

    def join_reader(self):
        """Waits (at most 10 s) for the reader to take the last lines once the process ended."""
        self.reader.join(timeout=10)

    def close(self, timeout=60):
        """Closes its stdin (the share consumers stop on it) and waits, killing it after `timeout` s."""
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.join_reader()

    def kill(self):
        """SIGKILL, if it still runs."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.join_reader()
