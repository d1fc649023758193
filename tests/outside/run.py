#!/usr/bin/env python3
"""Runs a client library's own integration tests ("outside suites") against a broker.

    run.py franz-go     [--bootstrap HOST:PORT] [--reference] [--work DIR]
    run.py kafka-python [--bootstrap HOST:PORT] [--reference] [--work DIR]

franz-go: the tests that ship in the franz-go module (`go test github.com/twmb/franz-go/pkg/kgo`,
version pinned by tests/outside/franz-go/go.mod). kafka-python: the `test/integration` tests of
its sdist (version and hash pinned by tests/outside/kafka-python/sdist.txt), fetched with pip
into the work directory, plus our stand-in for the one module the sdist does not ship
(tests/outside/kafka-python/shim/). Nothing fetched is committed.

Without --bootstrap a fresh ketch ($KETCH_BIN, default build/ketch) is started on a free port
with its own data directory, configured as the suite's own CI configures its broker
(SUITES[...]['ketch_args']); it is stopped at the end.

Every test that does not pass (failed, error, skipped) must be in the suite's allow-list
tests/outside/<suite>-skips.txt, one line per test: `<who> <test> <reason>`, where <who> is
  ketch  the test passes against Apache Kafka 4.3.1 but not against ketch (the reason says why)
  both   the test cannot pass against either broker here (e.g. it needs a broker it spawns itself)
  flaky  the test fails against ketch now and then (the reason says how often and what is known);
         it may pass or fail, against either broker
A tag may name the one mode its entry holds for: `ketch@cluster` (only against --cluster N brokers),
`both@single` (only against one broker, ketch's or the reference Kafka's); an entry without a mode
holds for both. An entry for the other mode is not read: a test listed for cluster mode only must
pass against one broker.
Against ketch (default) the run fails when a test outside the list does not pass, or a listed
test passes (the entry is stale: remove it). With --reference (the broker is Apache Kafka, see
scripts/outside-reference.sh) the run fails when a test outside the list does not pass, a `both`
test passes, or a `ketch` test does not pass: this is what shows that the list holds only what
Kafka also fails, or what ketch lacks.
"""

import argparse
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
VENV_PYTHON = REPO / ".venv" / "bin" / "python"
READY_TIMEOUT_S = 30
SKIPPED = 77  # ctest's SKIP_RETURN_CODE (tests/outside/CMakeLists.txt)
KAFKA_VERSION = "4.3.1"  # the Kafka ketch answers as (kafka-python gates tests on it)

SUITES = {
    # franz-go's CI runs these tests against an apache/kafka container with default settings;
    # the SCRAM tests also get a SASL_PLAINTEXT listener (KGO_TEST_SCRAM_SEEDS), which takes
    # OAUTHBEARER with unsecured tokens too (KGO_TEST_OAUTH_SEEDS; Kafka's default validator).
    "franz-go": {"ketch_args": ["--listener", "SASL_PLAINTEXT=SASL_PLAINTEXT://127.0.0.1:0",
                                "--sasl-oauthbearer-unsecured"]},
    # kafka-python's fixture broker (servers/resources/default/kafka.properties in its
    # repository): node id 0, an authorizer that allows everything without ACLs,
    # num.partitions=4, group.min.session.timeout.ms=1000, group.initial.rebalance.delay.ms=0.
    # scripts/outside-reference.sh gives the reference Kafka the same settings.
    "kafka-python": {"ketch_args": ["--node-id", "0", "--authorizer", "--allow-everyone-if-no-acl-found",
                                    "--default-partitions", "4", "--group-min-session-timeout-ms", "1000",
                                    "--group-initial-rebalance-delay-ms", "0"]},
}


def log(msg):
    print("outside: " + msg, flush=True)


def read_skips(suite, mode):
    """{test: (who, reason)} of the entries that hold in `mode` ("single" or "cluster")."""
    path = HERE / ("%s-skips.txt" % suite)
    skips, seen = {}, set()
    for n, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 2)
        who, _, only = parts[0].partition("@") if parts else ("", "", "")
        if len(parts) < 3 or who not in ("ketch", "both", "flaky") or only not in ("", "single", "cluster"):
            sys.exit("%s:%d: expected `ketch|both|flaky[@single|@cluster] <test> <reason>`" % (path, n))
        for m in ([only] if only else ["single", "cluster"]):
            if (parts[1], m) in seen:
                sys.exit("%s:%d: %s listed twice for %s mode" % (path, n, parts[1], m))
            seen.add((parts[1], m))
        if only in ("", mode):
            skips[parts[1]] = (who, parts[2])
    return skips


class Ketch:
    """A ketch of our own: free port, fresh data directory, log in the work directory."""

    def __init__(self, binary, work, args):
        self.binary, self.work, self.args = binary, work, args
        self.proc = None

    def __init__(self, binary, work, args, name="ketch"):
        self.binary, self.work, self.args, self.name = binary, work, args, name
        self.proc = None

    @property
    def log_path(self):
        return self.work / (self.name + ".log")

    @property
    def log_paths(self):
        return [self.log_path]

    def start(self):
        data = self.work / (self.name + "-data")
        shutil.rmtree(data, ignore_errors=True)
        ready = self.work / (self.name + ".ready")
        ready.unlink(missing_ok=True)
        argv = [str(self.binary), "--listen", "127.0.0.1:0", "--data-dir", str(data), "--ready-file", str(ready),
                "--log-level", "warn", "--schema-registry=false", "--console=false", *self.args]
        log("starting " + " ".join(argv))
        self.logf = open(self.log_path, "w")
        self.proc = subprocess.Popen(argv, stdout=self.logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + READY_TIMEOUT_S
        while not (ready.exists() and ready.read_text().strip()):
            if self.proc.poll() is not None:
                sys.exit("ketch exited with %d before it was ready (log: %s)" % (self.proc.returncode, self.log_path))
            if time.monotonic() > deadline:
                self.stop()
                sys.exit("ketch not ready after %d s" % READY_TIMEOUT_S)
            time.sleep(0.05)
        lj = data / "listeners.json"
        listeners = json.loads(lj.read_text())["listeners"] if lj.exists() else {}
        self.addresses = {name: v["address"] for name, v in listeners.items()}
        return ready.read_text().strip()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc:
            self.logf.close()
        code = self.proc.returncode if self.proc else 0
        self.proc = None
        return code


# ---- franz-go ----

class Cluster:
    """`--cluster N`: N ketch brokers in cluster mode (docs/cluster.md) on a PostgreSQL and an S3-compatible
    server of their own (tests/cluster/engines.py), node ids 0..N-1, each with the suite's flags. start()
    answers every broker's address, comma-separated, as a client's bootstrap list takes them."""

    def __init__(self, binary, work, args, size):
        sys.path.insert(0, str(REPO / "tests" / "cluster"))
        import engines
        self.engines = [engines.Postgres(), engines.MotoS3()]
        os.environ.update(engines.CREDENTIALS)  # the brokers read them from the environment
        pg, s3 = self.engines
        args = [a for i, a in enumerate(args) if a != "--node-id" and (i == 0 or args[i - 1] != "--node-id")]
        # A flush interval of 5 ms (default 100): the suites wait for one small produce after another
        # (franz-go's TestClient_Produce: 20,000 ProduceSync calls through a 5,000-byte buffer), each
        # up to an interval long; 50 s at 20 ms, 15 s at 5 ms (2026-12-07, 2 shared cores).
        self.brokers = [Ketch(binary, work, args + ["--node-id", str(n), "--cluster", pg.url(), "--object-store",
                                                    s3.url(), "--cluster-flush-ms", "5"], name="ketch-%d" % n)
                        for n in range(size)]
        self.addresses = {}

    def start(self):
        bootstrap = ",".join(b.start() for b in self.brokers)
        for name in self.brokers[0].addresses:
            self.addresses[name] = ",".join(b.addresses[name] for b in self.brokers)
        self._wait_for_membership(bootstrap)
        return bootstrap

    def _wait_for_membership(self, bootstrap, timeout_s=30):
        """Until each broker's Metadata lists all of them (a broker sees another at its next membership
        refresh): a suite's first requests then find every coordinator where the others say it is."""
        from confluent_kafka.admin import AdminClient
        deadline = time.monotonic() + timeout_s
        for address in bootstrap.split(","):
            admin = AdminClient({"bootstrap.servers": address})
            while len(admin.list_topics(timeout=10).brokers) != len(self.brokers):
                if time.monotonic() > deadline:
                    sys.exit("broker %s never listed all %d brokers" % (address, len(self.brokers)))
                time.sleep(0.1)

    def stop(self):
        codes = [b.stop() for b in self.brokers]
        for e in self.engines:
            e.close()
        return next((c for c in codes if c not in (0, -signal.SIGTERM)), codes[0])

    @property
    def log_paths(self):
        return [b.log_path for b in self.brokers]


SCRAM_USER, SCRAM_PASSWORD = "kgo-scram", "kgo-scram-secret"


def run_franz_go(bootstrap, work, sasl_bootstrap=None):
    # KGO_TEST_RECORDS: 100,000 records per ETL test instead of franz-go's 500,000 — the same
    # paths (groups, transactions, share groups) in a fifth of the time, for make test's budget.
    env = dict(os.environ, KGO_SEEDS=bootstrap, KGO_TEST_RF="1", KGO_LOG_LEVEL="warn", KGO_TEST_RECORDS="100000")
    if sasl_bootstrap:
        # TestSCRAMAuth logs in as this user (created with ketch's command line, which speaks
        # AlterUserScramCredentials to either broker); TestSCRAMAuthBadCredentials as nobody.
        subprocess.run([str(ketch_binary()), "user", "create", SCRAM_USER, "--password", SCRAM_PASSWORD,
                        "--mechanism", "SCRAM-SHA-256", "-b", bootstrap], check=True, stdout=subprocess.DEVNULL)
        env.update(KGO_TEST_SCRAM_SEEDS=sasl_bootstrap, KGO_TEST_SCRAM="%s:%s:256" % (SCRAM_USER, SCRAM_PASSWORD),
                   KGO_TEST_OAUTH_SEEDS=sasl_bootstrap)
    out = work / "go-test.json"
    # -parallel 4: the tests mark themselves t.Parallel(); go test's default runs as many at once
    # as GOMAXPROCS (2 here). Most of them wait on the broker (produce round trips, group
    # rebalances), not on the CPU, so four at a time (a 4-core CI runner's default, as franz-go's
    # own CI has) halve the suite's time: 257 -> 127-153 s against three brokers, 87 -> 54 s
    # against one (2026-12-07, 2 cores).
    argv = ["go", "test", "-json", "-count=1", "-parallel", "4", "-timeout", "20m", "github.com/twmb/franz-go/pkg/kgo"]
    log("running %s (KGO_SEEDS=%s) in %s; events in %s" % (" ".join(argv), bootstrap, HERE / "franz-go", out))
    with open(out, "w") as f:
        code = subprocess.run(argv, cwd=HERE / "franz-go", env=env, stdout=f, stderr=subprocess.STDOUT).returncode
    results, output = {}, {}
    for line in out.read_text().splitlines():
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        test = ev.get("Test")
        if not test or "/" in test:  # the top-level tests are the unit of the allow-list
            continue
        if ev["Action"] == "output":
            output.setdefault(test, []).append(ev.get("Output", ""))
        elif ev["Action"] in ("pass", "fail", "skip"):
            results[test] = ev["Action"]
    if not results:
        sys.exit("go test reported no test results (exit %d); see %s" % (code, out))
    return results, {t: "".join(o) for t, o in output.items()}


# ---- kafka-python ----

def fetch_kafka_python(work):
    """kafka-python's sdist (pinned with its hash) unpacked: returns the directory holding test/."""
    pin = HERE / "kafka-python" / "sdist.txt"
    dl = work / "sdist"
    dl.mkdir(parents=True, exist_ok=True)
    if not list(dl.glob("kafka_python-*.tar.gz")):
        log("downloading the kafka-python sdist pinned in %s" % pin)
        subprocess.run([str(VENV_PYTHON), "-m", "pip", "download", "-q", "--disable-pip-version-check", "--no-deps",
                        "--no-binary", ":all:", "--require-hashes", "-r", str(pin), "-d", str(dl)], check=True)
    (tarball,) = dl.glob("kafka_python-*.tar.gz")
    want = [l.split("--hash=sha256:")[1].split()[0] for l in pin.read_text().splitlines() if "--hash=sha256:" in l]
    got = hashlib.sha256(tarball.read_bytes()).hexdigest()
    if got not in want:
        sys.exit("%s: sha256 %s is not the pinned one" % (tarball, got))
    src = work / "src"
    shutil.rmtree(src, ignore_errors=True)
    src.mkdir()
    with tarfile.open(tarball) as tf:
        members = [m for m in tf.getmembers() if "/test/" in m.name and m.isfile()]
        tf.extractall(src, members=members, filter="data")
    (top,) = src.iterdir()
    tests = top / "test"
    # The shim: test/service.py, which the sdist's fixtures import but it does not ship, and an
    # empty test/__init__.py so `test` is this package and not the standard library's.
    shutil.copy(HERE / "kafka-python" / "shim" / "service.py", tests / "service.py")
    (tests / "__init__.py").touch()
    (work / "no-kafka-dist").mkdir(exist_ok=True)
    return top


def run_kafka_python(bootstrap, work, sasl_bootstrap=None, only=None):
    top = fetch_kafka_python(work)
    xml = work / ("junit-retry.xml" if only else "junit.xml")
    # Its fixture takes one host:port; against a cluster the client finds the others in Metadata.
    env = dict(os.environ, KAFKA_URI="PLAINTEXT://" + bootstrap.split(",")[0], KAFKA_VERSION=KAFKA_VERSION,
               # The fixtures insist that a Kafka distribution directory exists even for KAFKA_URI.
               KAFKA_ROOT=str(work / "no-kafka-dist"))
    # --tb=native: pytest's own traceback formatter crashes on some of these tests' sources
    # under Python 3.11.7 ("AST constructor recursion depth mismatch").
    argv = [str(VENV_PYTHON), "-m", "pytest", "test/integration", "-q", "-rfEs", "-p", "no:cacheprovider",
            "--tb=native", "--timeout=120", "-o", "log_level=WARNING", "-W", "ignore::DeprecationWarning",
            "--junitxml", str(xml)] + ["test/integration/" + t for t in (only or [])]
    log("running %s (KAFKA_URI=%s) in %s" % (" ".join(argv[1:]), env["KAFKA_URI"], top))
    with open(work / ("pytest-retry.log" if only else "pytest.log"), "w") as f:
        subprocess.run(argv, cwd=top, env=env, stdout=f, stderr=subprocess.STDOUT)
    if not xml.exists():
        sys.exit("pytest wrote no results; see %s" % (work / "pytest.log"))
    results, output = {}, {}
    for tc in ET.parse(xml).getroot().iter("testcase"):
        cls = tc.get("classname", "")
        cls = cls[len("test.integration."):] if cls.startswith("test.integration.") else cls
        parts = cls.split(".")
        name = parts[0] + ".py::" + "::".join(parts[1:] + [tc.get("name")])
        status = "pass"
        for child in tc:
            if child.tag in ("failure", "error"):
                status = "fail"
                output[name] = (child.get("message") or "") + "\n" + (child.text or "")[-3000:]
            elif child.tag == "skipped" and status == "pass":
                status = "skip"
                output[name] = child.get("message") or ""
        results[name] = status
    return results, output


def ketch_binary():
    return Path(os.environ.get("KETCH_BIN", REPO / "build" / "ketch"))


RUNNERS = {"franz-go": run_franz_go, "kafka-python": run_kafka_python}


def judge(suite, results, output, skips, reference):
    problems = []
    counts = {"pass": 0, "fail": 0, "skip": 0}
    for test in sorted(results):
        status = results[test]
        counts[status] += 1
        listed = skips.get(test)
        if listed and listed[0] == "flaky":
            continue
        if status != "pass" and listed is None:
            problems.append("%s: %s, and not in %s-skips.txt\n%s" % (test, status.upper(), suite,
                                                                      output.get(test, "").rstrip()[-4000:]))
        elif status == "pass" and listed and (not reference or listed[0] == "both"):
            problems.append("%s passes but is listed as `%s` in %s-skips.txt (%s)" % (test, listed[0], suite, listed[1]))
        elif status != "pass" and listed and reference and listed[0] == "ketch":
            problems.append("%s: %s against Kafka, but listed as `ketch` (only ketch fails it)\n%s" % (
                test, status.upper(), output.get(test, "").rstrip()[-2000:]))
    for test, (who, reason) in sorted(skips.items()):
        if test not in results:
            problems.append("%s is listed in %s-skips.txt but did not run at all" % (test, suite))
    listed_ran = sum(1 for t in results if t in skips)
    log("%s against %s: %d passed, %d failed, %d skipped (%d tests; %d allow-listed)" % (
        suite, "Apache Kafka" if reference else "ketch", counts["pass"], counts["fail"], counts["skip"],
        len(results), listed_ran))
    for test in sorted(results):
        if test in skips and (results[test] != "pass" or skips[test][0] == "flaky"):
            log("  allowed %-5s %s (%s: %s)" % (results[test], test, *skips[test]))
    return problems


def retry_once(results, output, skips, bootstrap, work, sasl_bootstrap):
    """kafka-python's consumer can lose its first subscription's metadata
    update (KafkaConsumer(topic) subscribes while its bootstrap Metadata
    request, topics=[], is in flight; the answer clears the pending update and
    the next refresh is metadata.max.age.ms = 300 s later): a consumer test
    then reads nothing, against any broker, now and then. A test that fails
    without being listed runs once more; only a second failure counts, and
    each retry is logged."""
    failed = [t for t, status in results.items() if status == "fail" and t not in skips]
    if not failed:
        return
    log("retrying once: %s" % ", ".join(failed))
    again, again_output = run_kafka_python(bootstrap, work, sasl_bootstrap, only=failed)
    for t in failed:
        if again.get(t) == "pass":
            log("  %s passed on its retry (first failure: %s)" % (t, output[t].strip().splitlines()[-1:] or ""))
            results[t] = "pass"
        else:
            output[t] = output.get(t, "") + "\n--- retry ---\n" + again_output.get(t, "did not run")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("suite", choices=sorted(SUITES))
    ap.add_argument("--bootstrap", help="run against this broker instead of starting a ketch")
    ap.add_argument("--sasl-bootstrap", help="the broker's SASL_PLAINTEXT listener (SCRAM-SHA-256 enabled)")
    ap.add_argument("--reference", action="store_true", help="the broker is Apache Kafka 4.3.1 (see above)")
    ap.add_argument("--work", help="work directory (default build/outside/SUITE)")
    ap.add_argument("--cluster", type=int, default=0, metavar="N",
                    help="start N ketch brokers in cluster mode (PostgreSQL and moto of their own) instead of one")
    opts = ap.parse_args()
    if opts.reference and not opts.bootstrap:
        ap.error("--reference needs --bootstrap")
    if opts.cluster and opts.bootstrap:
        ap.error("--cluster starts its brokers: not with --bootstrap")
    work = Path(opts.work or REPO / os.environ.get("BUILD_DIR", "build") / "outside" / opts.suite).resolve()
    work.mkdir(parents=True, exist_ok=True)
    skips = read_skips(opts.suite, "cluster" if opts.cluster else "single")

    if opts.suite == "franz-go" and not shutil.which("go"):
        log("skipped: go is not installed (deps/apt-test.txt; scripts/install-test-deps.sh)")
        sys.exit(SKIPPED)
    ketch = None
    bootstrap, sasl_bootstrap = opts.bootstrap, opts.sasl_bootstrap
    t0 = time.monotonic()
    if not bootstrap:
        args = SUITES[opts.suite]["ketch_args"]
        ketch = (Cluster(ketch_binary(), work, args, opts.cluster) if opts.cluster
                 else Ketch(ketch_binary(), work, args))
        bootstrap = ketch.start()
        sasl_bootstrap = ketch.addresses.get("SASL_PLAINTEXT")
    try:
        results, output = RUNNERS[opts.suite](bootstrap, work, sasl_bootstrap)
        if opts.suite == "kafka-python":
            retry_once(results, output, skips, bootstrap, work, sasl_bootstrap)
    finally:
        if ketch:
            code = ketch.stop()
            if code not in (0, -signal.SIGTERM):
                log("ketch exited with %d (logs: %s)" % (code, ", ".join(map(str, ketch.log_paths))))
    problems = judge(opts.suite, results, output, skips, opts.reference)
    for path in (ketch.log_paths if ketch else []):  # stopped in the finally above
        text = path.read_text(errors="replace") if path.exists() else ""
        if "Sanitizer" in text or "terminate called" in text:
            problems.append("ketch's log shows a crash: %s" % path)
    log("took %.0f s" % (time.monotonic() - t0))
    for p in problems:
        print("\nPROBLEM: " + p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
