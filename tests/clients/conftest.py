"""Fixtures for the client matrix: a real ketch process and the client drivers.

- broker: a fresh ketch (``$KETCH_BIN``, default build/ketch) on a free loopback port
  with its own data dir. ``@pytest.mark.ketch_args(...)`` adds command-line flags.
  With ``KETCH_TEST_BOOTSTRAP=host:port`` no ketch is started: the tests run against
  that broker (how the tests themselves are checked against Apache Kafka), and tests
  that restart the broker skip.
- client: parametrized over every driver of tests/clients/DRIVERS.md; a callable
  ``client(command, args) -> dict``. A driver that answers "unsupported" skips the test.
  ``KETCH_CLIENTS=confluent,kcat`` restricts the matrix; a client named there that is
  not built fails instead of skipping.
- drivers: the built drivers by name (for tests that mix clients); ``helper`` is the
  confluent-kafka driver, used for set-up steps a client under test cannot do.
- unique_topic: fresh topic names, so tests never see each other's topics.
"""

import functools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # also when tests/cluster loads this file
import cluster_matrix  # noqa: E402

CLIENTS_DIR = Path(__file__).resolve().parent
REPO = CLIENTS_DIR.parents[1]
VENV_PYTHON = REPO / ".venv" / "bin" / "python"
READY_TIMEOUT_S = 30
STOP_TIMEOUT_S = 30
DRIVER_TIMEOUT_S = 180


def _python():
    return str(VENV_PYTHON) if VENV_PYTHON.exists() else sys.executable


# name -> (how to run it, what must exist). Order is the order tests are reported in.
DRIVER_TABLE = {
    "java": ([CLIENTS_DIR / "java" / "driver"], None),
    "confluent": ([_python(), CLIENTS_DIR / "python" / "confluent_driver.py"], "confluent_kafka"),
    "kafka-python": ([_python(), CLIENTS_DIR / "python" / "kafka_python_driver.py"], "kafka"),
    "kafkajs": ([CLIENTS_DIR / "node" / "driver"], CLIENTS_DIR / "node" / "node_modules"),
    "franz-go": ([CLIENTS_DIR / "go" / "driver"], None),
    "kcat": ([_python(), CLIENTS_DIR / "kcat" / "driver"], "kcat"),
}
HELPER = "confluent"


@functools.lru_cache(maxsize=None)
def _missing(name):
    """Why driver `name` cannot run here, or None when it can."""
    argv, needs = DRIVER_TABLE[name]
    prog = Path(argv[-1])
    if not prog.exists():
        return "%s is not built (%s missing; run scripts/install-test-deps.sh)" % (name, prog)
    if len(argv) == 1 and not os.access(prog, os.X_OK):
        return "%s is not executable" % prog
    if needs == "kcat":
        if not (shutil.which("kcat") or shutil.which("kafkacat")):
            return "kcat is not installed (deps/apt-test.txt)"
    elif isinstance(needs, str):
        probe = subprocess.run([_python(), "-c", "import " + needs], capture_output=True)
        if probe.returncode != 0:
            return "python module %s missing from %s (run scripts/install-test-deps.sh)" % (needs, _python())
    elif isinstance(needs, Path) and not needs.exists():
        return "%s missing (run scripts/install-test-deps.sh)" % needs
    return None


def _wanted_clients():
    env = os.environ.get("KETCH_CLIENTS")
    if not env:
        return list(DRIVER_TABLE), False
    names = [n.strip() for n in env.split(",") if n.strip()]
    unknown = [n for n in names if n not in DRIVER_TABLE]
    if unknown:
        raise pytest.UsageError("KETCH_CLIENTS names unknown clients %s (known: %s)" % (unknown, list(DRIVER_TABLE)))
    return names, True


# ---------------------------------------------------------------- the broker

class BrokerProcess:
    """A ketch process the tests own. bootstrap is HOST:PORT as ketch wrote it to the
    ready file; restart() binds the same port again so clients keep their bootstrap."""

    external = False

    def __init__(self, binary, data_dir, run_dir, extra_args):
        self.binary = str(binary)
        self.data_dir = Path(data_dir)
        self.run_dir = Path(run_dir)
        self.extra_args = list(extra_args)
        self.log = self.run_dir / "ketch.log"
        self.ready_file = self.run_dir / "ready"
        self.proc = None
        self.bootstrap = None
        self.starts = 0

    @property
    def host(self):
        return self.bootstrap.rpartition(":")[0]

    @property
    def port(self):
        return int(self.bootstrap.rpartition(":")[2])

    def start(self, port=0):
        if self.proc is not None and self.proc.poll() is None:
            raise RuntimeError("ketch already running")
        if self.ready_file.exists():
            self.ready_file.unlink()
        # With --listen's port 0 the console and the registry take free ports too; a restart on
        # a given port would put them on their fixed defaults (9093, 8081), where two tests
        # restarting brokers at once collided (CI: test_crash_safety's restart failed with
        # EADDRINUSE). They keep free ports unless the test chose theirs.
        free = [] if port == 0 else [arg for flag in ("--console-addr", "--schema-registry-addr")
                                     if not any(a == flag or a.startswith(flag + "=") for a in self.extra_args)
                                     for arg in (flag, "127.0.0.1:0")]
        argv = [self.binary, "--listen", "127.0.0.1:%d" % port, "--data-dir", str(self.data_dir),
                "--ready-file", str(self.ready_file), "--log-level", "info", *free, *self.extra_args]
        with open(self.log, "ab") as log:
            log.write(("\n=== start %d: %s\n" % (self.starts, " ".join(argv))).encode())
            log.flush()
            self.proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.starts += 1
        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:  # ketch writes the ready file atomically once it listens
            if self.ready_file.exists():
                text = self.ready_file.read_text().strip()
                if text:
                    self.bootstrap = text
                    return self
            code = self.proc.poll()
            if code is not None:
                raise RuntimeError("ketch exited with %d before it was ready; log:\n%s" % (code, self.log_text()))
            if time.monotonic() > deadline:
                self.proc.kill()
                self.proc.wait()
                raise RuntimeError("ketch not ready after %d s; log:\n%s" % (READY_TIMEOUT_S, self.log_text()))
            time.sleep(0.02)

    def stop(self, sig=signal.SIGTERM):
        """Sends sig and waits for the exit; returns the exit code. A process that does
        not exit within STOP_TIMEOUT_S of SIGTERM is killed and the test fails."""
        if self.proc is None or self.proc.poll() is not None:
            return None if self.proc is None else self.proc.returncode
        self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            pytest.fail("ketch did not exit within %d s of signal %s" % (STOP_TIMEOUT_S, sig))

    def kill(self):
        return self.stop(signal.SIGKILL)

    def restart(self, sig=signal.SIGTERM):
        port = self.port
        self.stop(sig)
        return self.start(port=port)

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def listeners(self):
        """[<data-dir>/listeners.json] (a ClusterBroker's has one per broker)."""
        return [json.loads((self.data_dir / "listeners.json").read_text())]

    def log_text(self, limit=200_000):
        try:
            data = self.log.read_bytes()
        except FileNotFoundError:
            return "(no log)"
        return data[-limit:].decode(errors="replace")


class ExternalBroker:
    """A broker the tests did not start (KETCH_TEST_BOOTSTRAP), e.g. Apache Kafka."""

    external = True
    data_dir = None
    log = None

    def __init__(self, bootstrap):
        self.bootstrap = bootstrap

    @property
    def host(self):
        return self.bootstrap.rpartition(":")[0]

    @property
    def port(self):
        return int(self.bootstrap.rpartition(":")[2])

    def _skip(self, *_args, **_kw):
        pytest.skip("the broker at KETCH_TEST_BOOTSTRAP is not ours to stop or restart")

    stop = kill = restart = _skip

    def running(self):
        return True

    def log_text(self, limit=0):
        return "(external broker %s)" % self.bootstrap


def _ketch_binary():
    binary = Path(os.environ.get("KETCH_BIN", REPO / "build" / "ketch"))
    if not binary.exists():
        pytest.fail("ketch binary %s does not exist (build it, or set KETCH_BIN)" % binary)
    return binary


@pytest.fixture(scope="session")
def cluster_pool(tmp_path_factory):
    """KETCH_TEST_CLUSTER's engines and brokers, shared by the session's tests."""
    pool = cluster_matrix.ClusterPool(cluster_matrix.cluster_size(), _ketch_binary(), BrokerProcess,
                                      tmp_path_factory.mktemp("cluster"))
    yield pool
    pool.close()
    assert not pool.failures, pool.failures


def own_broker(request, run_dir, args):
    """A broker a test module starts with its own flags (listeners, users, TLS, SASL): one
    ketch with its data in run_dir/data, or under KETCH_TEST_CLUSTER=N a cluster of N started
    with those flags on the session's engines (modules that use it set
    OWN_BROKERS_JOIN_THE_MATRIX = True). Stop it with release_own_broker."""
    if cluster_matrix.cluster_size():
        return request.getfixturevalue("cluster_pool").own(list(args))
    (Path(run_dir) / "data").mkdir(exist_ok=True)
    return BrokerProcess(_ketch_binary(), Path(run_dir) / "data", run_dir, args).start()


def own_broker_scope(fixture_name, config):
    """The scope of a module's fixture that starts its own broker: the module, or under
    KETCH_TEST_CLUSTER each test (PostgreSQL's max_connections holds one cluster at a time,
    so a module with two such fixtures cannot keep both)."""
    return "function" if cluster_matrix.cluster_size() else "module"


def release_own_broker(b):
    bad = b.shutdown() if isinstance(b, cluster_matrix.ClusterBroker) else {1: b.stop()}
    assert all(code in (None, 0) for code in bad.values()), "brokers exited with %s on SIGTERM" % bad


def listener_address(b, name):
    """bootstrap.servers of listener `name`: its address on every broker, comma-separated."""
    return ",".join(l["listeners"][name]["address"] for l in b.listeners())


@pytest.fixture
def broker(request, tmp_path):
    external = os.environ.get("KETCH_TEST_BOOTSTRAP")
    if external:
        yield ExternalBroker(external)
        return
    marker = request.node.get_closest_marker("ketch_args")
    extra = list(marker.args) if marker else []
    if cluster_matrix.cluster_size():
        pool = request.getfixturevalue("cluster_pool")
        cluster = pool.get(extra)
        request.node.ketch_brokers = getattr(request.node, "ketch_brokers", []) + [cluster]
        request.node.ketch_engines = pool
        yield cluster
        return
    (tmp_path / "data").mkdir()
    b = BrokerProcess(_ketch_binary(), tmp_path / "data", tmp_path, extra)
    request.node.ketch_brokers = getattr(request.node, "ketch_brokers", []) + [b]
    b.start()
    yield b
    code = b.stop()
    if code not in (None, 0, -signal.SIGKILL):
        pytest.fail("ketch exited with %s on SIGTERM at teardown" % code)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failing test's report carries the log of every ketch it started."""
    outcome = yield
    rep = outcome.get_result()
    if rep.failed:
        for i, b in enumerate(getattr(item, "ketch_brokers", [])):
            rep.sections.append(("ketch log %d (%s)" % (i, b.log), b.log_text()))
        pool = getattr(item, "ketch_engines", None)
        for name, text in pool.engine_logs() if pool else []:
            rep.sections.append(("%s log" % name, text))


# ---------------------------------------------------------------- drivers

class DriverError(AssertionError):
    pass


class Driver:
    """One client driver bound to a broker: driver(command, args) -> dict (DRIVERS.md)."""

    def __init__(self, name, broker):
        self.name = name
        self.broker = broker
        self.argv = [str(a) for a in DRIVER_TABLE[name][0]]
        self.unsupported = None  # the reason of the last "unsupported" answer

    def __repr__(self):
        return "Driver(%s)" % self.name

    def call(self, command, args=None, timeout=DRIVER_TIMEOUT_S):
        """Runs the command; returns its JSON answer, or None when the driver answers
        "unsupported". Raises DriverError when the driver itself failed."""
        argv = self.argv + ["--bootstrap", self.broker.bootstrap, command, json.dumps(args or {})]
        try:
            p = subprocess.run(argv, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as e:
            raise DriverError("%s %s timed out after %d s\nstderr:\n%s" % (
                self.name, command, timeout, (e.stderr or b"").decode(errors="replace")[-8000:]))
        stderr = p.stderr.decode(errors="replace")
        if p.returncode != 0:
            raise DriverError("%s %s exited %d\nargs: %s\nstderr:\n%s" % (
                self.name, command, p.returncode, json.dumps(args)[:2000], stderr[-8000:]))
        try:
            out = json.loads(p.stdout)
        except ValueError:
            raise DriverError("%s %s printed no single JSON object\nstdout:\n%s\nstderr:\n%s" % (
                self.name, command, p.stdout.decode(errors="replace")[-4000:], stderr[-4000:]))
        if isinstance(out, dict) and "unsupported" in out:
            self.unsupported = out["unsupported"]
            return None
        if command == "create-topics" and isinstance(self.broker, cluster_matrix.ClusterBroker):
            cluster_matrix.wait_created_everywhere(self.broker, args or {}, out)
        return out

    def __call__(self, command, args=None, timeout=DRIVER_TIMEOUT_S):
        out = self.call(command, args, timeout)
        if out is None:
            pytest.skip("%s cannot %s: %s" % (self.name, command, self.unsupported))
        return out


def _client_params():
    names, _ = _wanted_clients()
    return names


@pytest.fixture(params=_client_params())
def client(request, broker):
    names, strict = _wanted_clients()
    why = _missing(request.param)
    if why:
        if strict:
            pytest.fail(why)
        pytest.skip(why)
    return Driver(request.param, broker)


@pytest.fixture
def drivers(broker):
    """Every built driver by name (the ones KETCH_CLIENTS allows)."""
    names, _ = _wanted_clients()
    return {n: Driver(n, broker) for n in names if _missing(n) is None}


@pytest.fixture
def helper(broker):
    """The confluent-kafka driver, for set-up a client under test cannot do itself."""
    why = _missing(HELPER)
    if why:
        pytest.fail(why)
    return Driver(HELPER, broker)


@pytest.fixture
def unique_topic(request, broker):
    """unique_topic(tag="") -> a topic name no other test (or run) uses. On an external
    broker (KETCH_TEST_BOOTSTRAP) the topics left behind are deleted after the test."""
    base = re.sub(r"[^A-Za-z0-9._-]+", "-", request.node.name)[:80]
    made = []

    def make(tag=""):
        made.append("%s-%s%s" % (base, uuid.uuid4().hex[:10], ("-" + tag) if tag else ""))
        return made[-1]
    yield make
    if broker.external and made and _missing(HELPER) is None:
        helper = Driver(HELPER, broker)
        existing = set(helper("list-topics")["topics"])
        left = [t for t in existing if any(t.startswith(m[:240]) for m in made)]
        if left:
            helper.call("delete-topics", {"topics": left})


def pytest_configure(config):
    config.addinivalue_line("markers", "ketch_args(*args): extra command-line flags for the ketch under test")


def pytest_collection_modifyitems(config, items):
    for item in items:  # a hung client must not hang the suite
        if item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(600))
    if cluster_matrix.cluster_size() and not os.environ.get("KETCH_TEST_BOOTSTRAP"):
        cluster_matrix.mark_skips(items)


# ---------------------------------------------------------------- helpers for the tests

def eventually(check, timeout=15.0, interval=0.05):
    """Polls check() until it returns without an AssertionError; returns its value.
    For what Kafka makes visible asynchronously (a KRaft broker applies a created or
    deleted topic to its metadata cache after the controller has answered), so a test
    holds on Apache Kafka as well as on ketch. The last AssertionError is re-raised."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return check()
        except AssertionError:
            if time.monotonic() > deadline:
                raise
        time.sleep(interval)


def java_main(main_class, args, **popen_kw):
    """Starts a main class of the Java driver (tests/clients/java, built first when stale)
    in its own JVM, e.g. java_main("ShareConsumerMain", [...], stdout=subprocess.PIPE)."""
    java = CLIENTS_DIR / "java"
    subprocess.run([str(java / "build.sh")], check=True)
    target = java / "target"
    classpath = "%s:%s/*" % (target / "driver.jar", target / "lib")
    return subprocess.Popen([os.environ.get("JAVA", "java"), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                             "-cp", classpath, "ketch." + main_class, *args], **popen_kw)


def wait_for(predicate, timeout=15.0, interval=0.05, what=None):
    """Polls predicate() until it returns a true value, and returns that value; an
    AssertionError when it has not by the timeout. (eventually() is for checks that
    assert: a check that returns False would pass it at once.)"""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("still not true after %.0f s: %s (last value %r)" % (timeout, what or predicate, value))
        time.sleep(interval)


def sigstop(proc, timeout=15.0):
    """SIGSTOPs `proc` (a Popen) and returns once every thread of it has stopped; SIGCONT resumes it.
    kill() returns before that: for a stop signal the kernel wakes one thread of the process to take
    it, and the others stop only once that thread has run (kernel/signal.c: complete_signal wakes the
    chosen thread, its do_signal_stop the others). Under load a broker so "stopped" went on answering
    requests sent after kill() returned (cluster_test_console_cluster: broker 2 answered broker 1's
    console), so a test that needs the process frozen waits for it here."""
    proc.send_signal(signal.SIGSTOP)
    wait_for(lambda: _stopped(proc.pid), timeout=timeout, what="every thread of process %d stopped" % proc.pid)


def _stopped(pid):
    """Whether every thread of `pid` is stopped ("T" in /proc/<pid>/task/<tid>/stat) or gone."""
    states = []
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            stat = Path("/proc/%d/task/%s/stat" % (pid, tid)).read_text()
        except OSError:
            continue  # the thread ended meanwhile
        states.append(stat[stat.rindex(")") + 2])
    return all(s in "TtXZ" for s in states)


def create_topics(client, helper, specs):
    """Creates {name: partitions} with the client under test, or with the helper when
    the client has no admin call; asserts success and waits until all are listed."""
    args = {"topics": [{"name": n, "partitions": p, "replication_factor": 1} for n, p in specs.items()]}
    out = client.call("create-topics", args)
    if out is None:
        out = helper("create-topics", args)
    assert [r["error"] for r in out["results"]] == [None] * len(specs), out

    def listed():
        topics = helper("list-topics")["topics"]
        assert {n: topics.get(n) for n in specs} == dict(specs)
    eventually(listed)
