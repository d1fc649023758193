"""A child process that reports on stdout in JSON lines (the Java share consumers of the
cluster tests), read on a thread of its own; lines that are not JSON are skipped."""

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
        with self.lock:
            return list(self.lines)

    def close(self):
        """Closes its stdin (the consumers stop on it) and waits, killing it after 60 s."""
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.reader.join(timeout=10)
