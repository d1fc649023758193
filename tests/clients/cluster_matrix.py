"""The client suite against a three-broker cluster (issue 26: "the whole existing client
suite runs against a three-broker cluster too").

``KETCH_TEST_CLUSTER=3`` (any N >= 1) makes conftest's ``broker`` fixture hand the tests a
ClusterBroker instead of one ketch: PostgreSQL and moto's S3 server (tests/cluster/engines.py)
and N ketch processes started with --cluster / --object-store, once per pytest session and
shared by every test (topics are per test: unique_topic). A test whose ``ketch_args`` differ
from the running cluster's gets a fresh cluster (new brokers, a new database and bucket
prefix on the same engines); the engines outlive it.

What the three brokers cannot be asked yet skips, with the reason, in SKIPS (a whole file,
or one test by name) and by the flags in ARGS_SKIPS: cluster_matrix_skip(item) says why.
"""

import os
import signal
import sys
import time
from pathlib import Path

import pytest

CLIENTS_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(CLIENTS_DIR.parent / "cluster"))

import engines  # noqa: E402  (tests/cluster/engines.py: PostgreSQL and moto on loopback)

# A flush waits at most this long for more batches (--cluster-flush-ms, default 100): the
# suite's produces are small and one at a time, so a short interval keeps it quick; every
# other cluster flag is left at its default.
FLUSH_MS = "20"


def cluster_size():
    """N from KETCH_TEST_CLUSTER, or 0 when the suite runs against one broker."""
    value = os.environ.get("KETCH_TEST_CLUSTER", "").strip()
    if not value or value == "0":
        return 0
    if not value.isdigit():
        raise pytest.UsageError("KETCH_TEST_CLUSTER=%r: give the number of brokers, e.g. 3" % value)
    return int(value)


class ClusterBroker:
    """N ketch brokers sharing one PostgreSQL database and one bucket prefix. It has the
    interface the tests use of a BrokerProcess: bootstrap is every broker's HOST:PORT,
    comma-separated (as bootstrap.servers takes them); host, port and data_dir are the
    first broker's. Stopping or restarting "the broker" skips the test: restarts and kills
    in cluster mode are tests/cluster's (test_chaos, test_group_failover, ...)."""

    external = False

    def __init__(self, brokers, extra_args):
        self.brokers = brokers
        self.extra_args = tuple(extra_args)

    @property
    def bootstrap(self):
        return ",".join(b.bootstrap for b in self.brokers)

    @property
    def host(self):
        return self.brokers[0].host

    @property
    def port(self):
        return self.brokers[0].port

    @property
    def data_dir(self):
        return self.brokers[0].data_dir

    @property
    def log(self):
        return self.brokers[0].log

    def _skip(self, *_args, **_kw):
        pytest.skip("cluster mode: the test stops or restarts the broker (broker restarts and kills "
                    "in cluster mode are tests/cluster's)")

    start = stop = kill = restart = _skip

    def running(self):
        return all(b.running() for b in self.brokers)

    def listeners(self):
        """Each broker's <data-dir>/listeners.json, in node order."""
        return [b.listeners()[0] for b in self.brokers]

    def log_text(self, limit=200_000):
        each = max(limit // len(self.brokers), 1)
        return "\n".join("--- node %d (%s)\n%s" % (i + 1, b.log, b.log_text(each)) for i, b in enumerate(self.brokers))

    def shutdown(self):
        """SIGTERM to every broker; the exit codes that were not 0."""
        bad = {}
        for i, b in enumerate(self.brokers):
            code = b.stop()
            if code not in (None, 0, -signal.SIGKILL):
                bad[i + 1] = code
        return bad


def module_broker(request, extra_args):
    """For a test module's own ``broker`` fixture (module scope) that starts ketch with flags of
    its own (registry_util.start_registry_broker, ...): in cluster mode the matrix's cluster
    started with extra_args (the same for every test of the module), else None and the module
    starts its single ketch. A module whose fixture goes through here sets MATRIX_BROKER = True
    (its tests are then judged as conftest's broker's are)."""
    if not cluster_size() or os.environ.get("KETCH_TEST_BOOTSTRAP"):
        return None
    pool = request.getfixturevalue("cluster_pool")
    cluster = pool.get(list(extra_args))
    request.node.ketch_brokers = getattr(request.node, "ketch_brokers", []) + [cluster]
    return cluster


def listener_urls(cluster, name):
    """Each broker's URL of listener `name` ("schema_registry", "console") from its
    <data-dir>/listeners.json, in node order."""
    import json
    return [json.loads((b.data_dir / "listeners.json").read_text())[name] for b in cluster.brokers]


def wait_created_everywhere(cluster, args, out, timeout_s=15.0):
    """After a CreateTopics through one broker: waits until every broker lists the topics it
    created. The others learn a new topic by PostgreSQL's NOTIFY a moment later, as Kafka's
    brokers learn it from the controller's log; the single-broker tests list it at once
    through any broker. A fresh client per broker asks that broker first."""
    from confluent_kafka.admin import AdminClient
    names = {r.get("name") or t["name"] for r, t in zip(out.get("results", []), args.get("topics", []))
             if r.get("error") is None}
    if not names or args.get("validate_only"):
        return
    deadline = time.monotonic() + timeout_s
    for b in cluster.brokers:
        while True:
            listed = AdminClient({"bootstrap.servers": b.bootstrap}).list_topics(timeout=10).topics
            if names <= set(listed) or time.monotonic() > deadline:
                break
            time.sleep(0.05)


def every_broker_lists_every_broker(brokers, timeout_s=30):
    """Waits until each broker's Metadata lists all of them. A broker sees another join at
    its next membership refresh (--cluster-heartbeat-ms, 2 s): until then the brokers
    disagree on which one coordinates a transactional id or a group (a broker that wrongly
    believes it coordinates an id answers NOT_COORDINATOR while the real one holds it, and
    the client retries). A cluster whose membership is settled is what the client suite
    asks; brokers joining and leaving are tests/cluster's."""
    from confluent_kafka.admin import AdminClient
    deadline = time.monotonic() + timeout_s
    for b in brokers:
        admin = AdminClient({"bootstrap.servers": b.bootstrap})
        while len(admin.list_topics(timeout=10).brokers) != len(brokers):
            if time.monotonic() > deadline:
                raise RuntimeError("broker %s never listed all %d brokers" % (b.bootstrap, len(brokers)))
            time.sleep(0.1)


class ClusterPool:
    """The session's engines and its current cluster (at most one runs at a time)."""

    def __init__(self, size, binary, broker_class, run_dir):
        self.size = size
        self.binary = binary
        self.broker_class = broker_class
        self.run_dir = Path(run_dir)
        self.postgres = None
        self.s3 = None
        self.current = None
        self.clusters = 0
        self.failures = []

    def engines(self):
        if self.postgres is None:
            self.postgres = engines.Postgres()
        if self.s3 is None:
            self.s3 = engines.MotoS3()
        for k, v in engines.CREDENTIALS.items():
            os.environ[k] = v  # the brokers read them from the environment they inherit
        return self.postgres, self.s3

    def get(self, extra_args):
        """The running cluster when it was started with extra_args, else a new one."""
        if self.current is not None and self.current.extra_args == tuple(extra_args):
            if self.current.running():
                return self.current
            self.failures.append("a broker of cluster %d exited during the tests" % self.clusters)
        self._retire()
        self.current = self._start(extra_args)
        return self.current

    def own(self, extra_args):
        """A cluster a test module starts with its own flags (conftest.own_broker) and shuts
        down itself; the shared one is retired first (started again when a test asks)."""
        self._retire()
        return self._start(extra_args)

    def _start(self, extra_args):
        postgres, s3 = self.engines()
        self.clusters += 1
        name = "matrix%d" % self.clusters
        if self.clusters > 1:
            postgres._run("createdb", "-h", "127.0.0.1", "-p", str(postgres.port), "-U", postgres.USER, name)
        db_url = postgres.url() if self.clusters == 1 else postgres.url().rpartition("/")[0] + "/" + name
        store = "s3://%s/%s?endpoint=%s&region=%s" % (s3.bucket, name, s3.endpoint, s3.REGION)
        brokers = []
        for node in range(1, self.size + 1):
            run = self.run_dir / name / ("node-%d" % node)
            (run / "data").mkdir(parents=True, exist_ok=True)
            args = ["--node-id", str(node), "--cluster", db_url, "--object-store", store,
                    "--cluster-flush-ms", FLUSH_MS, *extra_args]
            b = self.broker_class(self.binary, run / "data", run, args)
            brokers.append(b)
            try:
                b.start()
            except Exception:
                for started in brokers:
                    started.stop()
                raise
        every_broker_lists_every_broker(brokers)
        return ClusterBroker(brokers, extra_args)

    def _retire(self):
        if self.current is not None:
            bad = self.current.shutdown()
            if bad:
                self.failures.append("cluster %d: brokers exited with %s on SIGTERM" % (self.clusters, bad))
            self.current = None

    def engine_logs(self):
        return [(type(e).__name__, e.log_text()) for e in (self.postgres, self.s3) if e is not None]

    def close(self):
        self._retire()
        for e in (self.s3, self.postgres):
            if e is not None:
                e.close()
        self.s3 = self.postgres = None


# ---------------------------------------------------------------- what skips, and why

# The tenancy files start their own single-node ketch (module fixtures): --tenancy needs
# principals, so ketch.toml users and SASL_PLAINTEXT listeners (and a token secret, an
# authorizer, --metrics-listen, per file), which the matrix's brokers (PLAINTEXT, no
# users) do not have. Tenants shared by brokers — made on one, used on another, deleted
# on a third — are tests/cluster/test_shared_tenants.py's.
TENANCY_OWN_BROKER = ("its own single-node ketch with --tenancy, ketch.toml users and a SASL_PLAINTEXT listener "
                      "(the matrix's brokers have PLAINTEXT only); tenants shared by brokers: "
                      "tests/cluster/test_shared_tenants.py")

# The console of one broker in a cluster (docs/cluster.md "The console").
DISK_FAULTS = ("disk faults fail a partition's local log files, and cluster mode's partitions are in object "
               "storage: refused there (400), tests/cluster/test_shared_faults.py")

# "file" (every test in it) or "file::test" (the test's function name, every client) -> reason.
SKIPS = {
    # Files whose tests start their own single-node ketch with the flags they test.
    "test_acls.py": "restarts its broker (the ACLs' durability); ACLs and SCRAM users shared by brokers, and a broker restarted keeping them: tests/cluster/test_shared_security.py",
    "test_cli.py::test_help_and_completion": "asks no broker (the CLI's help text): nothing to run against a cluster",
    # test_console_api runs on the cluster (the first broker's console); these start their own ketch.
    "test_console_api.py::test_console_off_and_non_loopback_needs_a_choice":
        "starts single-node ketches of its own with the console off and on a non-loopback address",
    "test_console_api.py::test_login_with_the_brokers_scram_users":
        "its own single-node ketch with SCRAM users from a config file (shared SCRAM users: "
        "tests/cluster/test_shared_security.py)",
    "test_console_browser.py": "its own single-node ketch with SCRAM users from a config file and a SASL listener "
                               "(per broker), which the matrix's brokers lack",
    "test_console_clients_page.py": "its own single-node ketch per test (a browser over its clients page); the "
                                    "clients page of a cluster is test_console_telemetry's",
    # test_console_telemetry runs on the cluster (the first broker's console lists every broker's clients).
    "test_console_telemetry.py::test_telemetry_apis_are_advertised_only_with_the_console":
        "starts a single-node ketch of its own with the console off",
    "test_console_tenants_page.py": "its own single-node ketch with --tenancy and SASL users; a tenant's user's "
                                    "console over a cluster is tests/cluster/test_console_tenants.py's (tenants "
                                    "shared by brokers: tests/cluster/test_shared_tenants.py)",
    # test_delegation_tokens runs on clusters of its own (a token created through one broker logs in at
    # once through another: the login reads it through, tests/cluster/test_read_through.py).
    "test_delegation_tokens.py::test_tokens_survive_a_restart":
        "restarts its broker (a restarted broker of a cluster keeps the tokens: tests/cluster/test_shared_tokens.py)",
    # test_faults runs on the cluster (faults added through the first broker's console, by the API and the
    # CLI, are the cluster's: docs/cluster.md "Scripted faults"); the disk faults skip, and the tests that
    # start their own ketch.
    "test_faults.py::test_disk_full_answers_storage_error_and_loses_nothing_acknowledged": DISK_FAULTS,
    "test_faults.py::test_fsync_failure_answers_storage_error": DISK_FAULTS,
    "test_faults.py::test_faults_refused_on_a_non_loopback_listener":
        "starts single-node ketches of its own on a non-loopback listener",
    "test_faults.py::test_without_faults_the_endpoint_is_404": "starts a single-node ketch of its own without --faults",
    "test_idempotent_proxy.py": "its own single-node ketch behind a proxy that advertises one address; broker "
                                "failure with idempotent producers in cluster mode is tests/cluster/test_chaos.py's",
    # The registry files run on the cluster (registry_util.start_registry_broker); these tests
    # start single-node ketches of their own.
    "test_schema_registry.py::test_registry_state_survives_a_restart":
        "restarts its own single-node ketch (the registry's schemas.db in --data-dir); in cluster mode the registry "
        "is in PostgreSQL and survives any broker: tests/cluster/test_shared_schema_registry.py",
    "test_schema_registry_api.py::test_tls_and_basic_auth_with_the_brokers_users":
        "its own single-node ketch with TLS and SCRAM users from a config file (TLS and SASL settings are per broker)",
    "test_schema_registry_api.py::test_acls_guard_subjects_through_their_topics":
        "its own single-node ketch with SASL listeners and an authorizer; shared ACLs: "
        "tests/cluster/test_shared_security.py",
    "test_schema_registry_api.py::test_acknowledged_registrations_survive_kill_9":
        "SIGKILLs its own single-node ketch (kills in cluster mode are tests/cluster's; the registry's state there "
        "is PostgreSQL's: tests/cluster/test_shared_schema_registry.py)",
    "test_schema_registry_api.py::test_a_taken_address_or_the_off_switch_leave_the_broker_serving":
        "starts single-node ketches of its own on a taken address and with --schema-registry=false",
    "test_share_groups_tls.py": "its own single-node broker with TLS listeners (test_security's secure_broker)",
    "test_tenancy.py": TENANCY_OWN_BROKER,
    "test_tenant_admin.py": TENANCY_OWN_BROKER,
    "test_tenant_delete.py": TENANCY_OWN_BROKER,
    "test_tenant_limits.py": TENANCY_OWN_BROKER,
    "test_security.py::test_a_client_certificate_bound_to_a_tenant_is_that_tenant":
        "tenancy against a cluster is tests/cluster/test_shared_tenants.py's; this test's own broker has no "
        "--tenancy catalogue shared through the matrix yet",
    # Tests of the matrix's broker that ask what a cluster does not offer.
    "test_compression_type.py::test_topic_codec_recompresses_batches_in_another_codec":
        "reads the partition's segment file in the broker's --data-dir; in cluster mode the batches are objects in "
        "the bucket",
    "test_configs.py::test_dynamic_broker_default_acts_on_topics_without_override":
        "it sets one broker's own BROKER resource (its node id), which acts on that broker only, as in Kafka: the "
        "produce may go to another broker; the cluster-wide default: tests/cluster/test_shared_broker_configs.py",
    "test_consumer_offsets_topic.py::test_committed_offsets_are_records_in_kafkas_formats_and_survive_restarts":
        "__consumer_offsets is a per-broker mirror in cluster mode (docs/cluster.md); committed offsets are in "
        "PostgreSQL",
    "test_many_partitions.py": "counts the partition directories in the broker's --data-dir; in cluster mode "
                               "partitions are rows and objects, never directories",
    "test_quorum_log_dirs.py": "pins one broker: the KRaft quorum of one voter and the log dirs of its --data-dir",
    "test_topics.py::test_describe_shows_every_partition_led_by_the_broker":
        "pins one broker as every partition's leader (cluster: leaders spread over three; tests/cluster/"
        "test_membership.py checks the leaders)",
    "test_topics.py::test_describe_cluster_is_the_one_broker": "pins one broker in DescribeCluster (cluster: "
                                                               "tests/cluster/test_membership.py)",
    "test_topics.py::test_kcat_metadata_listing_shows_broker_and_topics": "pins one broker in `kcat -L`'s listing",
}

# A ketch_args flag -> why a test that needs it skips in cluster mode. A flag in neither
# this nor ARGS_KEPT fails the collection, so a new flag is judged when it is added.
ARGS_SKIPS = {
}
ARGS_KEPT = {
    # group timings: each broker coordinates the groups it owns with them
    "--group-consumer-heartbeat-interval-ms", "--group-consumer-session-timeout-ms",
    "--group-initial-rebalance-delay-ms", "--group-streams-session-timeout-ms",
    "--group-streams-heartbeat-interval-ms",
    "--metrics-listen",  # each broker serves its own metrics (port 0: a free one)
    # each broker locks the records of the share-partitions it leads for this long
    "--group-share-record-lock-duration-ms",
    # the files that use these skip whole (SKIPS)
    "--log-cleaner-backoff-ms", "--retention-check-ms",
}


def _reason(item):
    path = Path(str(item.fspath)).name
    name = getattr(item, "originalname", None) or item.name.partition("[")[0]
    for key in ("%s::%s" % (path, name), path):
        if key in SKIPS:
            return SKIPS[key]
    marker = item.get_closest_marker("ketch_args")
    for flag in (a for a in (marker.args if marker else ()) if str(a).startswith("--")):
        if flag in ARGS_SKIPS:
            return ARGS_SKIPS[flag]
        if flag not in ARGS_KEPT:
            raise pytest.UsageError("%s: ketch_args flag %s is not judged for cluster mode "
                                    "(tests/clients/cluster_matrix.py: ARGS_SKIPS or ARGS_KEPT)" % (item.nodeid, flag))
    if getattr(item.module, "OWN_BROKERS_JOIN_THE_MATRIX", False):
        return None  # its own brokers are clusters (conftest.own_broker)
    if "broker" not in item.fixturenames or not _uses_the_matrix_broker(item):
        raise pytest.UsageError("%s starts its own broker, not the matrix's cluster: give it a reason "
                                "in tests/clients/cluster_matrix.py SKIPS" % item.nodeid)
    return None


def _uses_the_matrix_broker(item):
    """Whether the test's `broker` is conftest's (a module may define its own)."""
    defs = item._fixtureinfo.name2fixturedefs.get("broker") or ()
    if defs and getattr(item.module, "MATRIX_BROKER", False):
        return True  # the module's own fixture asks the matrix (module_broker)
    return bool(defs) and Path(defs[-1].func.__code__.co_filename).name == "conftest.py"


def mark_skips(items):
    for item in items:
        reason = _reason(item)
        if reason:
            item.add_marker(pytest.mark.skip(reason="cluster mode: " + reason))
