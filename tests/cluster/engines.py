"""The engines cluster mode runs on, started by the tests on loopback.

- Postgres: a PostgreSQL server from Debian's packages (deps/apt-test.txt:
  postgresql) in a temporary directory: initdb (trust authentication, one
  superuser) and pg_ctl, run as a non-root user (PostgreSQL refuses root: when
  the tests run as root, as CI does, the commands run as the `postgres` user
  the Debian package creates, through runuser). url() is what
  `ketch --cluster` takes.
- MotoS3: moto's S3-compatible server (tests/clients/requirements.txt pins
  moto[server]), with a bucket made through boto3; url() is what
  `ketch --object-store` takes. Credentials: any (moto does not check them);
  AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY as CREDENTIALS says.

Both wait for readiness by asking the server (bounded by a deadline), and stop
what they started on close().
"""

import glob
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

READY_TIMEOUT_S = 30
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "ketch-test", "AWS_SECRET_ACCESS_KEY": "ketch-test-secret"}


PORT_ATTEMPTS = 5
MAX_CONNECTIONS = 200  # room for ten brokers and the tests' own sessions (Postgres.start)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pg_bin_dir():
    """The newest installed PostgreSQL's bin directory (Debian: /usr/lib/postgresql/N/bin)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    if not found:
        raise RuntimeError("PostgreSQL is not installed (deps/apt-test.txt: postgresql; `make test-apt`)")
    return Path(found[-1]).parent


class Postgres:
    USER = "ketch"      # the database superuser initdb makes
    DATABASE = "ketch"
    OS_USER = "postgres"  # who runs the server when the tests run as root

    def __init__(self, max_connections=MAX_CONNECTIONS):
        self.max_connections = max_connections
        self.bin = pg_bin_dir()
        self.dir = Path(tempfile.mkdtemp(prefix="ketch-pg-"))
        self.data = self.dir / "data"
        self.log = self.dir / "postgres.log"
        self.port = free_port()
        self.as_root = os.geteuid() == 0
        if self.as_root:
            pw = pwd.getpwnam(self.OS_USER)
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
        self._run("initdb", "-D", str(self.data), "-U", self.USER, "--auth=trust", "-E", "UTF8", "--no-sync")
        # The port was free when picked; another process on the machine may take it before
        # the server binds it: then another port.
        for attempt in range(PORT_ATTEMPTS):
            try:
                self.start()
                break
            except RuntimeError as e:
                if "already in use" not in str(e) or attempt == PORT_ATTEMPTS - 1:
                    raise
                self.port = free_port()
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", self.USER, self.DATABASE)

    def _run(self, tool, *args, check=True):
        argv = [str(self.bin / tool), *args]
        if self.as_root:
            argv = ["runuser", "-u", self.OS_USER, "--", *argv]
        r = subprocess.run(argv, cwd=self.dir, stdin=subprocess.DEVNULL, capture_output=True, text=True)
        if check and r.returncode != 0:
            raise RuntimeError("%s failed (%d): %s%s\n%s" % (tool, r.returncode, r.stdout, r.stderr, self.log_text()))
        return r

    def start(self):
        # fsync off: a test's database need not survive a power cut; -k: the socket in our directory.
        # max_connections: each broker holds at most --cluster-pg-connections (5) + 4 connections
        # (docs/cluster.md, "Starting brokers"); test_pg_connections.py starts a smaller server.
        opts = "-p %d -c listen_addresses=127.0.0.1 -k %s -c fsync=off -c max_connections=%d" % (
            self.port, self.dir, self.max_connections)
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", opts, "-w", "-t",
                  str(READY_TIMEOUT_S), "start")

    def stop(self, mode="fast"):
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop", check=False)

    def url(self):
        return "postgres://%s@127.0.0.1:%d/%s" % (self.USER, self.port, self.DATABASE)

    def psql(self, sql):
        """Runs SQL with psql; its output rows, '|'-separated."""
        r = self._run("psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", self.USER, "-d", self.DATABASE,
                      "-At", "-v", "ON_ERROR_STOP=1", "-c", sql)
        return [line for line in r.stdout.splitlines() if line]

    def log_text(self):
        try:
            return self.log.read_text(errors="replace")[-20000:]
        except OSError:
            return ""

    def close(self):
        self.stop("immediate")
        shutil.rmtree(self.dir, ignore_errors=True)


class S3Server:
    """An S3-compatible server process on a free loopback port, in a temporary directory, with a bucket.
    A subclass names the server (name), its command line and environment, and the path that answers once
    it serves (READY_PATH)."""

    REGION = "us-east-1"
    READY_PATH = "/"
    TEMP_PARENT = None  # where the temporary directory goes (None: the system's)

    def command(self):
        raise NotImplementedError

    def environment(self):
        return None

    def __init__(self, bucket="ketch-test"):
        self.bucket = bucket
        self.dir = Path(tempfile.mkdtemp(prefix="ketch-%s-" % self.name, dir=self.TEMP_PARENT))
        self.log = self.dir / ("%s.log" % self.name)
        for attempt in range(PORT_ATTEMPTS):  # as PostgreSQL's: the picked port may be taken meanwhile
            self.port = free_port()
            with open(self.log, "wb") as log:
                self.proc = subprocess.Popen(self.command(), env=self.environment(), stdout=log,
                                             stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            try:
                self._wait_ready()
                break
            except RuntimeError as e:
                self.close_process()
                if "already in use" not in str(e) or attempt == PORT_ATTEMPTS - 1:
                    raise
        self.client().create_bucket(Bucket=bucket)

    @property
    def endpoint(self):
        return "http://127.0.0.1:%d" % self.port

    def _wait_ready(self):
        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:
            try:
                urllib.request.urlopen(self.endpoint + self.READY_PATH, timeout=1).read()
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("%s did not start; log:\n%s" % (self.name, self.log_text()))
                time.sleep(0.05)

    def client(self):
        import boto3  # pinned beside moto in tests/clients/requirements.txt
        return boto3.client("s3", endpoint_url=self.endpoint, region_name=self.REGION,
                            aws_access_key_id=CREDENTIALS["AWS_ACCESS_KEY_ID"],
                            aws_secret_access_key=CREDENTIALS["AWS_SECRET_ACCESS_KEY"])

    def url(self, bucket=None):
        return "s3://%s?endpoint=%s&region=%s" % (bucket or self.bucket, self.endpoint, self.REGION)

    def keys(self, prefix=""):
        r = self.client().list_objects_v2(Bucket=self.bucket, Prefix=prefix)
        return [o["Key"] for o in r.get("Contents", [])]

    def log_text(self):
        try:
            return self.log.read_text(errors="replace")[-20000:]
        except OSError:
            return ""

    def close_process(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def close(self):
        self.close_process()
        shutil.rmtree(self.dir, ignore_errors=True)


class MotoS3(S3Server):
    """moto's server (pinned in tests/clients/requirements.txt); it does not check credentials."""

    name = "moto"
    READY_PATH = "/moto-api/"

    def command(self):
        return [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)]
