"""`ketch topic|produce|consume|group|acl|user|quota|cluster|txn|env` (src/cli,
docs/cli.md) against a running broker: every command group, round trips with
kcat and the Java client (same keys, headers, timestamps), SASL logins, and bad
input (exit codes 1 and 2 with a message naming Kafka's error code).

With KETCH_TEST_BOOTSTRAP=host:port the same tests run against that broker
(e.g. Apache Kafka 4.3.1 from conformance/reference/kafka.sh; the tests that
start a broker of their own skip). scripts/cli-reference.sh does that.
"""
import base64
import json
import os
import re
import subprocess
import time

import pytest

from conftest import (_ketch_binary, eventually, listener_address, own_broker, release_own_broker,
                      wait_for)

# Under KETCH_TEST_CLUSTER=N the SASL and TLS brokers started here are clusters of N
# (tests/clients/cluster_matrix.py); the other tests use the matrix's `broker`.
OWN_BROKERS_JOIN_THE_MATRIX = True


def ketch(broker, *args, stdin=None, env=None, check=True, timeout=60):
    argv = [str(_ketch_binary()), *[str(a) for a in args]]
    if broker is not None and args and args[0] not in ("env", "completion"):
        argv += ["-b", broker.bootstrap]
    e = dict(os.environ)
    e.pop("KAFKA_BOOTSTRAP_SERVERS", None)
    e.setdefault("KETCH_CONFIG_DIR", "/nonexistent-ketch-config")
    e.update(env or {})
    p = subprocess.run(argv, input=stdin.encode() if isinstance(stdin, str) else stdin, capture_output=True,
                       timeout=timeout, env=e)
    if check and p.returncode != 0:
        raise AssertionError("%s exited %d\nstdout:\n%s\nstderr:\n%s" % (
            " ".join(argv), p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")))
    return p


def out_json(p):
    return json.loads(p.stdout)


def b64(s):
    return base64.b64encode(s.encode()).decode()


def unb64(s):
    return None if s is None else base64.b64decode(s).decode()


# ------------------------------------------------------------------ topics

def test_topic_lifecycle(broker, unique_topic):
    t = unique_topic()
    created = out_json(ketch(broker, "topic", "create", t, "-p", "3", "-c", "retention.ms=3600000", "--json"))
    assert created[0]["name"] == t and created[0]["error_code"] == 0
    names = [x["name"] for x in out_json(ketch(broker, "topic", "list", "--json"))]
    assert t in names
    table = ketch(broker, "topic", "list").stdout.decode()
    assert table.splitlines()[0].split() == ["NAME", "PARTITIONS", "REPLICAS"]
    assert any(line.split()[:2] == [t, "3"] for line in table.splitlines())

    d = out_json(ketch(broker, "topic", "describe", t, "--json"))
    assert [p["partition"] for p in d["partitions"]] == [0, 1, 2]
    assert d["configs"]["retention.ms"] == "3600000"

    ketch(broker, "topic", "alter-config", t, "--set", "retention.ms=7200000", "--set", "cleanup.policy=compact")
    d = out_json(ketch(broker, "topic", "describe", t, "--json"))
    assert d["configs"]["retention.ms"] == "7200000"
    assert d["configs"]["cleanup.policy"] == "compact"
    ketch(broker, "topic", "alter-config", t, "--delete", "cleanup.policy")
    assert "cleanup.policy" not in out_json(ketch(broker, "topic", "describe", t, "--json"))["configs"]

    ketch(broker, "topic", "add-partitions", t, "-n", "2")
    assert len(out_json(ketch(broker, "topic", "describe", t, "--json"))["partitions"]) == 5
    ketch(broker, "topic", "add-partitions", t, "--to", "6")
    assert len(out_json(ketch(broker, "topic", "describe", t, "--json"))["partitions"]) == 6

    ketch(broker, "produce", t, "-P", "0", stdin="a\nb\nc\nd\n")
    trimmed = out_json(ketch(broker, "topic", "trim", t, "-p", "0", "-o", "2", "--json"))
    assert trimmed == [{"partition": 0, "low_watermark": 2, "error": ""}]
    parts = out_json(ketch(broker, "topic", "describe", t, "--json"))["partitions"]
    assert (parts[0]["log_start_offset"], parts[0]["high_watermark"]) == (2, 4)

    deleted = out_json(ketch(broker, "topic", "delete", t, "--json"))
    assert deleted == [{"name": t, "error": "", "error_code": 0}]
    wait_for(lambda: t not in [x["name"] for x in out_json(ketch(broker, "topic", "list", "--json"))])


def test_topic_errors_name_the_kafka_code(broker, unique_topic):
    t = unique_topic()
    ketch(broker, "topic", "create", t, "-p", "1")
    again = ketch(broker, "topic", "create", t, "-p", "1", check=False)
    assert again.returncode == 1
    assert b"TOPIC_ALREADY_EXISTS (36)" in again.stderr
    missing = ketch(broker, "topic", "describe", unique_topic("missing"), check=False)
    assert missing.returncode == 1
    assert b"UNKNOWN_TOPIC_OR_PARTITION (3)" in missing.stderr and b"hint:" in missing.stderr


# ------------------------------------------------------------------ produce / consume

def test_produce_consume_round_trip(broker, unique_topic):
    t = unique_topic()
    ketch(broker, "topic", "create", t, "-p", "2")
    ketch(broker, "produce", t, "-K", ":", "-H", "src=cli", "-H", "n=1", "-z", "zstd", stdin="k1:v1\nk2:v2\nk3:v3\n")
    recs = [json.loads(line) for line in
            ketch(broker, "consume", t, "-o", "beginning", "-e", "--json").stdout.decode().splitlines()]
    assert sorted((r["key"], r["value"]) for r in recs) == [("k1", "v1"), ("k2", "v2"), ("k3", "v3")]
    for r in recs:
        assert r["headers"] == [{"key": "src", "value": "cli"}, {"key": "n", "value": "1"}]
        assert abs(r["timestamp"] - time.time() * 1000) < 120_000
    text = ketch(broker, "consume", t, "-o", "beginning", "-e", "-f", "%k=%v@%p/%o\\n").stdout.decode()
    assert sorted(text.splitlines()) == sorted("%s=%s@%d/%d" % (r["key"], r["value"], r["partition"], r["offset"])
                                               for r in recs)
    # -n stops after N records; -o -1 is the last record of each partition.
    assert len(ketch(broker, "consume", t, "-o", "beginning", "-n", "2").stdout.decode().splitlines()) == 2
    last = ketch(broker, "consume", t, "-o", "-1", "-e", "--json").stdout.decode().splitlines()
    assert len(last) == len({r["partition"] for r in recs})


def test_pipelined_produce_keeps_order_and_reports_offsets(broker, unique_topic):
    # 2 x 8 MiB of lines: each run sends ~10 Produce requests of <= 900 KiB,
    # up to five in flight (src/cli/produce_cmd.cc). The records must land in
    # input order, once, and --json must report each run's own offset range.
    t = unique_topic()
    ketch(broker, "topic", "create", t, "-p", "1")
    n = 40_000
    pad = "x" * 200
    for run in range(2):
        lines = "".join('{"value": "%d-%06d-%s"}\n' % (run, i, pad) for i in range(n))
        summary = out_json(ketch(broker, "produce", t, "-P", "0", "--json", stdin=lines))
        assert summary["records"] == n
        assert summary["partitions"] == [{"partition": 0, "first_offset": run * n, "last_offset": run * n + n - 1}]
    got = ketch(broker, "consume", t, "-o", "beginning", "-e", "-f", "%o %v\n", timeout=120).stdout.decode().splitlines()
    expected = ["%d %d-%06d-%s" % (run * n + i, run, i, pad) for run in range(2) for i in range(n)]
    assert got == expected


@pytest.mark.parametrize("codec", ["none", "gzip", "snappy", "lz4", "zstd"])
def test_produce_codecs_and_binary_values(broker, unique_topic, codec):
    t = unique_topic()
    ketch(broker, "topic", "create", t, "-p", "1")
    raw = bytes(range(256))
    line = json.dumps({"key": "bin", "value_base64": base64.b64encode(raw).decode(), "timestamp": 1700000000123,
                       "headers": {"h": "x"}})
    ketch(broker, "produce", t, "--json", "-z", codec, stdin=line + "\n")
    rec = json.loads(ketch(broker, "consume", t, "-o", "beginning", "-e", "--json").stdout)
    assert base64.b64decode(rec["value_base64"]) == raw
    assert rec["timestamp"] == 1700000000123
    assert rec["headers"] == [{"key": "h", "value": "x"}]
    # Raw bytes go to stdout untouched with a template.
    assert ketch(broker, "consume", t, "-o", "beginning", "-e", "-f", "%v").stdout == raw


def test_produce_format_template_input(broker, unique_topic):
    t = unique_topic()
    ketch(broker, "topic", "create", t, "-p", "3")
    ketch(broker, "produce", t, "-f", "%p\\t%k\\t%v\\n", stdin="2\ta\tx\n0\tb\ty\n")
    recs = [json.loads(l) for l in ketch(broker, "consume", t, "-o", "beginning", "-e", "--json").stdout.splitlines()]
    assert sorted((r["partition"], r["key"], r["value"]) for r in recs) == [(0, "b", "y"), (2, "a", "x")]


def test_consume_from_timestamp(broker, unique_topic):
    t = unique_topic()
    ketch(broker, "topic", "create", t, "-p", "1")
    lines = "\n".join(json.dumps({"value": "v%d" % i, "timestamp": 1000 * (i + 1)}) for i in range(5)) + "\n"
    ketch(broker, "produce", t, "--json", stdin=lines)
    got = ketch(broker, "consume", t, "-o", "@3000", "-e").stdout.decode().split()
    assert got == ["v2", "v3", "v4"]
    assert ketch(broker, "consume", t, "-o", "+4", "-e").stdout.decode().split() == ["v4"]


def test_ketch_produce_read_by_kcat_and_java(broker, drivers, unique_topic):
    readers = [n for n in ("kcat", "java") if n in drivers]
    if not readers:
        pytest.skip("neither kcat nor the Java driver is built")
    t = unique_topic()
    ketch(broker, "topic", "create", t, "-p", "1")
    lines = "".join(json.dumps({"key": "k%d" % i, "value": "v%d" % i, "timestamp": 1700000000000 + i,
                                "headers": [{"key": "h", "value": str(i)}]}) + "\n" for i in range(5))
    ketch(broker, "produce", t, "--json", "-z", "lz4", stdin=lines)
    for name in readers:
        got = drivers[name]("consume", {"topic": t, "partitions": [0], "from": "beginning", "max_records": 5,
                                        "timeout_ms": 20000, "isolation_level": "read_uncommitted"})["records"]
        assert [(unb64(r["key"]), unb64(r["value"]), r["timestamp"]) for r in got] == \
            [("k%d" % i, "v%d" % i, 1700000000000 + i) for i in range(5)], name
        assert [[(h[0], unb64(h[1])) for h in r["headers"]] for r in got] == [[("h", str(i))] for i in range(5)], name


def test_java_and_kcat_produce_read_by_ketch(broker, drivers, unique_topic):
    writers = [n for n in ("java", "kcat") if n in drivers]
    if not writers:
        pytest.skip("neither kcat nor the Java driver is built")
    for name in writers:
        t = unique_topic(name)
        ketch(broker, "topic", "create", t, "-p", "1")
        recs = [{"key": b64("k%d" % i), "value": b64("v%d" % i), "headers": [["h", b64(str(i))]],
                 "timestamp": 1700000000000 + i, "partition": 0} for i in range(4)]
        drivers[name]("produce", {"topic": t, "acks": "all", "compression": "gzip", "idempotent": False,
                                  "records": recs})
        got = [json.loads(l) for l in ketch(broker, "consume", t, "-o", "beginning", "-e", "--json").stdout.splitlines()]
        assert [(r["key"], r["value"], r["timestamp"], r["headers"]) for r in got] == \
            [("k%d" % i, "v%d" % i, 1700000000000 + i, [{"key": "h", "value": str(i)}]) for i in range(4)], name


def test_keyed_records_land_where_the_java_producer_puts_them(broker, drivers, unique_topic):
    if "java" not in drivers:
        pytest.skip("the Java driver is not built")
    t = unique_topic()
    ketch(broker, "topic", "create", t, "-p", "7")
    keys = ["key-%d" % i for i in range(12)]
    java = drivers["java"]("produce", {"topic": t, "acks": "all", "compression": "none", "idempotent": False,
                                       "records": [{"key": b64(k), "value": b64("j")} for k in keys]})["records"]
    ketch(broker, "produce", t, "-K", ":", stdin="".join("%s:c\n" % k for k in keys))
    recs = [json.loads(l) for l in ketch(broker, "consume", t, "-o", "beginning", "-e", "--json").stdout.splitlines()]
    ours = {r["key"]: r["partition"] for r in recs if r["value"] == "c"}
    assert ours == {k: java[i]["partition"] for i, k in enumerate(keys)}


# ------------------------------------------------------------------ groups

def test_group_offsets_lag_seek_delete(broker, unique_topic):
    t = unique_topic()
    g = unique_topic("group")
    ketch(broker, "topic", "create", t, "-p", "2")
    ketch(broker, "produce", t, "-P", "0", stdin="a\nb\nc\n")
    ketch(broker, "produce", t, "-P", "1", stdin="d\n")
    assert sorted(ketch(broker, "consume", t, "-g", g, "-o", "beginning", "-e").stdout.decode().split()) == \
        ["a", "b", "c", "d"]
    assert ketch(broker, "consume", t, "-g", g, "-e").stdout == b""  # resumes at the committed offsets
    assert g in [x["group"] for x in out_json(ketch(broker, "group", "list", "--json"))]
    d = out_json(ketch(broker, "group", "describe", g, "--json"))
    assert d["total_lag"] == 0
    assert sorted((o["partition"], o["committed_offset"], o["end_offset"]) for o in d["offsets"]) == [(0, 3, 3), (1, 1, 1)]

    dry = out_json(ketch(broker, "group", "seek", g, "--to-earliest", "--dry-run", "--json"))
    assert sorted((o["partition"], o["new_offset"]) for o in dry["offsets"]) == [(0, 0), (1, 0)]
    assert out_json(ketch(broker, "group", "describe", g, "--json"))["total_lag"] == 0  # nothing committed
    ketch(broker, "group", "seek", g, "--shift-by", "-1")
    d = out_json(ketch(broker, "group", "describe", g, "--json"))
    assert d["total_lag"] == 2
    assert sorted(ketch(broker, "consume", t, "-g", g, "-e").stdout.decode().split()) == ["c", "d"]
    ketch(broker, "group", "seek", g, "--to-offset", "1", "-t", t)
    assert sorted(o["committed_offset"] for o in out_json(ketch(broker, "group", "describe", g, "--json"))["offsets"]) == [1, 1]

    ketch(broker, "group", "delete", g)
    gone = ketch(broker, "group", "describe", g, check=False)
    assert gone.returncode == 1 and b"GROUP_ID_NOT_FOUND" in gone.stderr
    usage = ketch(broker, "group", "seek", g, check=False)
    assert usage.returncode == 2


# ------------------------------------------------------------------ cluster, quotas, users, txn

def test_cluster_info_and_config(broker):
    info = out_json(ketch(broker, "cluster", "info", "--json"))
    assert info["cluster_id"]
    assert any(b["controller"] for b in info["brokers"])
    # one of the brokers of the bootstrap list (three in cluster mode: KETCH_TEST_CLUSTER)
    assert "%s:%d" % (info["brokers"][0]["host"], info["brokers"][0]["port"]) in broker.bootstrap.split(",") \
        or broker.external
    cfg = out_json(ketch(broker, "cluster", "config", "--all", "--json"))
    assert "log.retention.hours" in cfg or "log.retention.ms" in cfg


def test_quota_alter_and_describe(broker, unique_topic):
    user = unique_topic("user")
    ketch(broker, "quota", "alter", "--entity", "user=" + user, "--add", "producer_byte_rate=1048576")
    got = out_json(ketch(broker, "quota", "describe", "--entity", "user=" + user, "--json"))
    assert got == [{"entity": {"user": user}, "values": {"producer_byte_rate": 1048576.0}}]
    ketch(broker, "quota", "alter", "--entity", "user=" + user, "--remove", "producer_byte_rate")
    assert out_json(ketch(broker, "quota", "describe", "--entity", "user=" + user, "--json")) == []
    assert ketch(broker, "quota", "alter", "--entity", "group=x", "--add", "a=1", check=False).returncode == 2


def test_user_create_list_delete(broker, unique_topic):
    user = unique_topic("user")
    ketch(broker, "user", "create", user, "--password", "pw-1", "--mechanism", "SCRAM-SHA-512", "--iterations", "8192")
    users = out_json(ketch(broker, "user", "list", "--json"))
    assert {"user": user, "credentials": [{"mechanism": "SCRAM-SHA-512", "iterations": 8192}]} in users
    ketch(broker, "user", "delete", user, "--mechanism", "SCRAM-SHA-512")
    assert user not in [u["user"] for u in out_json(ketch(broker, "user", "list", "--json"))]


def test_txn_list_and_describe(broker, drivers, unique_topic):
    if "java" not in drivers:
        pytest.skip("the Java driver is not built")
    t = unique_topic()
    tid = unique_topic("txn")
    ketch(broker, "topic", "create", t, "-p", "1")
    drivers["java"]("txn-produce", {"transactional_id": tid, "transactions": [
        {"commit": True, "records": [{"topic": t, "partition": 0, "key": None, "value": b64("committed")}]},
        {"commit": False, "records": [{"topic": t, "partition": 0, "key": None, "value": b64("aborted")}]}]})
    listed = out_json(ketch(broker, "txn", "list", "--json"))
    assert tid in [x["transactional_id"] for x in listed]
    # ListTransactions v2: the pattern matches the whole id (TransactionStateManager.listTransactionStates);
    # a state filter combines with it.
    by_pattern = out_json(ketch(broker, "txn", "list", "--pattern", re.escape(tid), "--json"))
    assert [x["transactional_id"] for x in by_pattern] == [tid]
    assert out_json(ketch(broker, "txn", "list", "--pattern", re.escape(tid[:-1]), "--json")) == []
    assert out_json(ketch(broker, "txn", "list", "--pattern", re.escape(tid), "--state", "Ongoing", "--json")) == []
    bad = ketch(broker, "txn", "list", "--pattern", "(", check=False)
    assert bad.returncode == 1 and b"INVALID_REGULAR_EXPRESSION" in bad.stderr
    d = out_json(ketch(broker, "txn", "describe", tid, "--json"))
    assert d["transactional_id"] == tid and d["state"] in ("CompleteAbort", "Empty")
    # read_committed skips the aborted record; read_uncommitted shows it.
    assert ketch(broker, "consume", t, "-o", "beginning", "-e", "--read-committed").stdout.decode().split() == ["committed"]
    assert ketch(broker, "consume", t, "-o", "beginning", "-e").stdout.decode().split() == ["committed", "aborted"]


# ------------------------------------------------------------------ env, profiles, usage

def test_env_prints_and_saves_a_profile(broker, tmp_path, unique_topic):
    e = {"KETCH_CONFIG_DIR": str(tmp_path / "cfg")}
    assert ketch(None, "env", "--listen", "127.0.0.1:19999").stdout.decode() == "KAFKA_BOOTSTRAP_SERVERS=127.0.0.1:19999\n"
    java = ketch(None, "env", "-b", broker.bootstrap, "-f", "java", "-X", "security.protocol=SASL_SSL",
                 "-X", "sasl.mechanism=SCRAM-SHA-512", "-X", "sasl.username=alice").stdout.decode()
    assert "bootstrap.servers=%s\n" % broker.bootstrap in java
    assert "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"alice\"" in java
    for fmt, needle in (("librdkafka", "sasl.mechanisms="), ("python", "\"bootstrap.servers\""),
                        ("franz-go", "kgo.SeedBrokers"), ("kafkajs", "new Kafka(")):
        assert needle in ketch(None, "env", "-b", broker.bootstrap, "-f", fmt,
                               "-X", "security.protocol=SASL_PLAINTEXT").stdout.decode(), fmt
    ketch(None, "env", "-b", broker.bootstrap, "--profile", "dev", env=e)
    assert (tmp_path / "cfg" / "dev.properties").read_text().count("bootstrap.servers=%s" % broker.bootstrap) == 1
    t = unique_topic()
    ketch(None, "topic", "create", t, env=e)  # no -b: the current profile
    assert t in [x["name"] for x in out_json(ketch(None, "topic", "list", "--json", env=e))]
    assert ketch(None, "topic", "list", "--profile", "nope", env=e, check=False).returncode == 2


def test_bad_input_exit_codes(broker, unique_topic):
    t = unique_topic()
    ketch(broker, "topic", "create", t, "-p", "1")
    down = subprocess.run([str(_ketch_binary()), "topic", "list", "-b", "127.0.0.1:1"], capture_output=True, timeout=60)
    assert down.returncode == 1
    assert b"cannot connect to 127.0.0.1:1" in down.stderr
    for args in (["consume", t, "-f", "%q"], ["produce", t, "-f", "50%"], ["consume", t, "-o", "soon"],
                 ["topic", "bogus"], ["topic", "create"], ["produce", t, "-X", "security.protocol=TLS"],
                 ["produce", t, "-z", "brotli"]):
        p = ketch(broker, *args, stdin="", check=False)
        assert p.returncode == 2, (args, p.stderr)
        assert p.stderr, args
    bad_fmt = ketch(broker, "consume", t, "-f", "%q", check=False)
    assert b"unknown directive '%q'" in bad_fmt.stderr
    nb = subprocess.run([str(_ketch_binary()), "topic", "list"], capture_output=True, timeout=60,
                        env={"PATH": os.environ.get("PATH", ""), "KETCH_CONFIG_DIR": "/nonexistent-ketch-config"})
    assert nb.returncode == 2 and b"no brokers" in nb.stderr
    unknown = ketch(broker, "produce", unique_topic("missing"), stdin="x\n", check=False)
    assert unknown.returncode == 1 and b"UNKNOWN_TOPIC_OR_PARTITION" in unknown.stderr
    mismatch = ketch(broker, "produce", t, "-f", "%k:%v\\n", stdin="no-colon-here\n", check=False)
    assert mismatch.returncode == 2


def test_help_and_completion():
    for group in ("topic", "produce", "consume", "group", "acl", "user", "quota", "cluster", "txn", "env"):
        p = ketch(None, group, "--help", check=False)
        assert p.returncode == 0, group
    assert b"Examples:" in ketch(None, "topic", "create", "--help").stdout
    comp = ketch(None, "completion", "bash").stdout.decode()
    assert "complete -o default -F _ketch ketch" in comp and '"topic create")' in comp
    r = subprocess.run(["bash", "-c", comp + "\nCOMP_WORDS=(ketch topic cr); COMP_CWORD=2; _ketch; echo ${COMPREPLY[*]}"],
                       capture_output=True, text=True, timeout=30)
    assert r.stdout.split() == ["create"]


# ------------------------------------------------------------------ security

USERS = {"alice": "alice-secret"}


class ExternalSaslBroker:
    """A SASL_PLAINTEXT listener of another broker (KETCH_TEST_SASL_BOOTSTRAP;
    scripts/cli-reference.sh points it at a Kafka 4.3.1 with PLAIN user alice,
    StandardAuthorizer and super.users=User:alice)."""

    def __init__(self, address):
        self.sasl = address


def _admin(broker):
    return ["-b", broker.sasl, "-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanism=PLAIN",
            "-X", "sasl.username=alice", "-X", "sasl.password=alice-secret"]


@pytest.fixture
def sasl_broker(request, tmp_path):
    external = os.environ.get("KETCH_TEST_SASL_BOOTSTRAP")
    if external:
        b = ExternalSaslBroker(external)
        # Kafka knows alice for PLAIN only (its JAAS file): give her SCRAM
        # credentials too, as ketch.toml's [[users]] does for ketch.
        for mechanism in ("SCRAM-SHA-256", "SCRAM-SHA-512"):
            ketch(None, "user", "create", "alice", "--password", "alice-secret", "--mechanism", mechanism, *_admin(b))
        yield b
        return
    if os.environ.get("KETCH_TEST_BOOTSTRAP"):
        pytest.skip("starts a SASL broker of its own")
    toml = tmp_path / "ketch.toml"
    toml.write_text("".join('[[users]]\nname = "%s"\npassword = "%s"\n' % kv for kv in USERS.items()))
    b = own_broker(request, tmp_path, [
        "--config", str(toml), "--listener", "SASL=SASL_PLAINTEXT://127.0.0.1:0",
        "--authorizer", "--super-users", "User:alice"])
    b.sasl = listener_address(b, "SASL")
    yield b
    release_own_broker(b)


def logs_in(argv):
    """Kafka applies a new SCRAM credential on its brokers after the controller
    commits it, so a login right after `user create` may still fail there; ketch
    answers once it is stored. Wait for the first success."""
    return wait_for(lambda: ketch(None, *argv, check=False).returncode == 0, timeout=30)


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_sasl_login_and_acls(sasl_broker, mechanism):
    def k(*args, user="alice", password="alice-secret", check=True):
        return ketch(None, *args, "-b", sasl_broker.sasl, "-X", "security.protocol=SASL_PLAINTEXT",
                     "-X", "sasl.mechanism=" + mechanism, "-X", "sasl.username=" + user,
                     "-X", "sasl.password=" + password, check=check)
    logs_in(["cluster", "info", "-b", sasl_broker.sasl, "-X", "security.protocol=SASL_PLAINTEXT",
             "-X", "sasl.mechanism=" + mechanism, "-X", "sasl.username=alice", "-X", "sasl.password=alice-secret"])
    secure = "secure-" + mechanism.lower()
    k("topic", "create", secure, "-p", "1")
    assert secure in [x["name"] for x in out_json(k("topic", "list", "--json"))]
    wrong = k("topic", "list", password="nope", check=False)
    assert wrong.returncode == 1
    assert b"SASL_AUTHENTICATION_FAILED (58)" in wrong.stderr and b"sasl.password" in wrong.stderr

    k("acl", "create", "--principal", "User:bob", "--topic", secure, "--operation", "read", "--operation", "describe")
    acls = out_json(k("acl", "list", "--principal", "User:bob", "--json"))
    assert sorted(a["operation"] for a in acls) == ["DESCRIBE", "READ"]
    assert {(a["resource_type"], a["resource_name"], a["pattern_type"], a["permission"]) for a in acls} == \
        {("TOPIC", secure, "LITERAL", "ALLOW")}
    deleted = out_json(k("acl", "delete", "--principal", "User:bob", "--topic", secure, "--json"))
    assert len(deleted) == 2
    assert out_json(k("acl", "list", "--principal", "User:bob", "--json")) == []


def test_scram_user_made_by_the_cli_can_log_in(sasl_broker):
    base = ["-b", sasl_broker.sasl, "-X", "security.protocol=SASL_PLAINTEXT"]
    admin = base + ["-X", "sasl.mechanism=PLAIN", "-X", "sasl.username=alice", "-X", "sasl.password=alice-secret"]
    ketch(None, "user", "create", "carol", "--password", "carol-pw", "--mechanism", "SCRAM-SHA-512", *admin)
    ketch(None, "acl", "create", "--principal", "User:carol", "--cluster", "--operation", "describe", *admin)
    carol = base + ["-X", "sasl.mechanism=SCRAM-SHA-512", "-X", "sasl.username=carol", "-X", "sasl.password=carol-pw"]
    logs_in(["cluster", "info", *carol])
    info = out_json(ketch(None, "cluster", "info", "--json", *carol))
    assert info["brokers"]
    bad = ketch(None, "cluster", "info", *(base + ["-X", "sasl.mechanism=SCRAM-SHA-512", "-X", "sasl.username=carol",
                                                   "-X", "sasl.password=wrong"]), check=False)
    assert bad.returncode == 1 and b"SASL_AUTHENTICATION_FAILED" in bad.stderr


def test_trim_refused_on_a_compacted_topic(broker, unique_topic):
    """DeleteRecords on a topic whose cleanup.policy lacks delete is POLICY_VIOLATION
    (Kafka's Partition.deleteRecordsOnLeader: `if (!leaderLog.config.delete)`)."""
    compacted, both = unique_topic("compact"), unique_topic("both")
    ketch(broker, "topic", "create", compacted, "-p", "1", "-c", "cleanup.policy=compact")
    ketch(broker, "topic", "create", both, "-p", "1", "-c", "cleanup.policy=compact,delete")
    for t in (compacted, both):
        ketch(broker, "produce", t, "-k", "k", stdin="a\nb\n")
    refused = ketch(broker, "topic", "trim", compacted, "-o", "1", "--json", check=False)
    assert refused.returncode == 1
    assert out_json(refused) == [{"partition": 0, "low_watermark": -1, "error": "POLICY_VIOLATION"}]
    assert b"POLICY_VIOLATION (44)" in refused.stderr
    assert out_json(ketch(broker, "topic", "trim", both, "-o", "1", "--json")) == \
        [{"partition": 0, "low_watermark": 1, "error": ""}]


@pytest.mark.parametrize("protocol", ["classic", "consumer"])
def test_consume_group_members_share_the_partitions(broker, unique_topic, protocol):
    """Two `ketch consume -g` processes join one group: in the classic protocol the
    range assignor gives each two of the four partitions, in the consumer protocol
    (KIP-848) the broker's assignor does; together they read every record once and
    commit where they stopped."""
    t, g = unique_topic(), unique_topic("group")
    ketch(broker, "topic", "create", t, "-p", "4")
    argv = [str(_ketch_binary()), "consume", t, "-g", g, "--group-protocol", protocol, "-o", "beginning",
            "--timeout", "15000", "-f", "%p %v\\n", "-b", broker.bootstrap]
    members = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    try:
        def stable():
            d = ketch(broker, "group", "describe", g, "--json", check=False)
            assert d.returncode == 0, d.stderr
            d = json.loads(d.stdout)
            assert d["state"] == "Stable" and len(d["members"]) == 2 and d["type"] == protocol, d
            if protocol == "consumer":  # both members hold their partitions: the assignment is reconciled
                assert sorted(len(m["assignment"]) for m in d["members"]) == [2, 2], d
        eventually(stable, timeout=30, interval=0.5)
        listed = [x for x in out_json(ketch(broker, "group", "list", "--json")) if x["group"] == g]
        assert [x["type"].lower() for x in listed] == [protocol], listed
        ketch(broker, "produce", t, "-K", ":", stdin="".join("k%d:v%d\n" % (i, i) for i in range(40)))
        outs = [m.communicate(timeout=60) for m in members]
    finally:
        for m in members:
            if m.poll() is None:
                m.kill()
    assert [m.returncode for m in members] == [0, 0], [o[1] for o in outs]
    seen = [[line.split() for line in o[0].decode().splitlines()] for o in outs]
    parts = [{int(p) for p, _ in s} for s in seen]
    assert parts[0] and parts[1] and not parts[0] & parts[1]
    assert sorted(v for s in seen for _, v in s) == sorted("v%d" % i for i in range(40))
    d = out_json(ketch(broker, "group", "describe", g, "--json"))
    assert d["total_lag"] == 0 and d["members"] == []


from test_security import certs  # noqa: E402,F401  (the module's CA and server certificate fixture)


@pytest.fixture
def tls_broker(request, tmp_path, certs):  # noqa: F811
    if os.environ.get("KETCH_TEST_BOOTSTRAP"):
        pytest.skip("starts a TLS broker of its own")
    toml = tmp_path / "ketch.toml"
    toml.write_text('[[users]]\nname = "alice"\npassword = "alice-secret"\n')
    b = own_broker(request, tmp_path, [
        "--config", str(toml), "--listener", "SSL=SSL://127.0.0.1:0", "--listener", "SASL_SSL=SASL_SSL://127.0.0.1:0",
        "--tls-cert", str(certs / "server.crt"), "--tls-key", str(certs / "server.key")])
    b.addresses = {n: listener_address(b, n) for n in ("SSL", "SASL_SSL")}
    yield b
    release_own_broker(b)


def test_tls_and_sasl_ssl(tls_broker, certs, tmp_path):  # noqa: F811
    ca = str(certs / "ca.crt")
    ssl = ["-b", tls_broker.addresses["SSL"], "-X", "security.protocol=SSL", "-X", "ssl.ca.location=" + ca]
    ketch(None, "topic", "create", "tls-topic", "-p", "1", *ssl)
    ketch(None, "produce", "tls-topic", *ssl, stdin="over-tls\n")
    assert ketch(None, "consume", "tls-topic", "-o", "beginning", "-e", *ssl).stdout == b"over-tls\n"
    sasl_ssl = ["-b", tls_broker.addresses["SASL_SSL"], "-X", "security.protocol=SASL_SSL", "-X", "ssl.ca.location=" + ca,
                "-X", "sasl.mechanism=SCRAM-SHA-512", "-X", "sasl.username=alice", "-X", "sasl.password=alice-secret"]
    assert "tls-topic" in [x["name"] for x in out_json(ketch(None, "topic", "list", "--json", *sasl_ssl))]
    # A CA that did not sign the broker's certificate: exit 1, the handshake named.
    wrong = tmp_path / "other-ca.crt"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-days", "1", "-subj", "/CN=other", "-keyout", str(tmp_path / "other.key"), "-out", str(wrong)],
                   check=True, capture_output=True)
    bad = ketch(None, "topic", "list", "-b", tls_broker.addresses["SSL"], "-X", "security.protocol=SSL",
                "-X", "ssl.ca.location=" + str(wrong), check=False)
    assert bad.returncode == 1 and b"TLS handshake" in bad.stderr
