"""Tenancy (--tenancy, docs/tenancy.md): two tenants on one broker, each with
its own SASL users, create the same topic and the same group name, produce and
consume with real clients, and never see each other's records, offsets,
groups or metadata; an anonymous tenant works with plain kcat; hostile names
are refused.

Users: alice and alice-ops (bound to tenant alice in ketch.toml) are tenant
"alice"; bob is tenant "bob"; root is a super user (no tenant: internal names);
"eve~x" holds the separator and cannot log in. The PLAINTEXT listener's
connections are the anonymous tenant "dev".
"""

import base64
import json
from types import SimpleNamespace

import pytest

from conftest import Driver, DriverError, _ketch_binary, _missing, _wanted_clients, BrokerProcess

USERS = {"alice": "alice-pw", "alice-ops": "ops-pw", "bob": "bob-pw", "root": "root-pw", "eve~x": "eve-pw"}
TOPIC = "orders.created"
GROUP = "billing"
CLIENTS = [c for c in ("java", "confluent", "franz-go") if c in _wanted_clients()[0]]


@pytest.fixture(scope="module")
def tenancy_broker(tmp_path_factory):
    run = tmp_path_factory.mktemp("tenancy-broker")
    toml = run / "ketch.toml"
    entries = []
    for name, pw in USERS.items():
        e = '[[users]]\nname = "%s"\npassword = "%s"\n' % (name, pw)
        if name == "alice-ops":
            e += 'tenant = "alice"\n'
        entries.append(e)
    toml.write_text("".join(entries))
    (run / "data").mkdir()
    b = BrokerProcess(_ketch_binary(), run / "data", run, [
        "--config", str(toml), "--tenancy", "--anonymous-tenant", "dev", "--super-users", "User:root",
        "--listener", "SASL_PLAINTEXT=SASL_PLAINTEXT://127.0.0.1:0"])
    b.start()
    listeners = json.loads((run / "data" / "listeners.json").read_text())["listeners"]
    b.addresses = {name: v["address"] for name, v in listeners.items()}
    yield b
    b.stop()


def sasl(client, user):
    if client == "java":
        return {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN", "sasl.jaas.config":
                'org.apache.kafka.common.security.plain.PlainLoginModule required username="%s" password="%s";'
                % (user, USERS[user])}
    key = "sasl.mechanism" if client == "franz-go" else "sasl.mechanisms"
    return {"security.protocol": "SASL_PLAINTEXT", key: "PLAIN", "sasl.username": user,
            "sasl.password": USERS[user]}


def driver(name, address):
    why = _missing(name)
    if why:
        pytest.skip(why)
    return Driver(name, SimpleNamespace(bootstrap=address))


def b64(s):
    return base64.b64encode(s.encode()).decode()


def values(out):
    return sorted(base64.b64decode(r["value"]).decode() for r in out["records"])


def create(drv, cfg, name, partitions=1):
    return drv("create-topics", {"topics": [{"name": name, "partitions": partitions, "replication_factor": 1}],
                                 "config": cfg})["results"][0]["error"]


@pytest.mark.parametrize("client", CLIENTS)
def test_two_tenants_share_names_and_nothing_else(tenancy_broker, client):
    drv = driver(client, tenancy_broker.addresses["SASL_PLAINTEXT"])
    topic, group = "%s-%s" % (TOPIC, client), "%s-%s" % (GROUP, client)
    cfg = {"alice": sasl(client, "alice"), "bob": sasl(client, "bob")}
    for tenant in ("alice", "bob"):
        assert create(drv, cfg[tenant], topic) is None, tenant  # the same name, twice: two topics
        out = drv("produce", {"topic": topic, "acks": "all", "config": cfg[tenant],
                              "records": [{"key": None, "value": b64("%s-%d" % (tenant, i)), "partition": 0}
                                          for i in range(3)]})
        assert [r["error"] for r in out["records"]] == [None] * 3, out
    for tenant in ("alice", "bob"):
        got = drv("consume", {"topic": topic, "partitions": [0], "from": "beginning", "max_records": 10,
                              "timeout_ms": 3000, "config": cfg[tenant]})
        assert values(got) == ["%s-%d" % (tenant, i) for i in range(3)], (tenant, got)
        listed = drv("list-topics", {"config": cfg[tenant]})["topics"]
        assert topic in listed and all("~" not in t for t in listed), listed
    # The same group name in both tenants: separate members, offsets, descriptions.
    for tenant, n in (("alice", 3), ("bob", 2)):
        out = drv("group-consume", {"topic": topic, "group": group, "max_records": n, "timeout_ms": 20000,
                                    "idle_ms": 1000, "commit": "sync", "from": "earliest", "config": cfg[tenant]})
        assert len(out["records"]) == n, (tenant, out)
    for tenant, n in (("alice", 3), ("bob", 2)):
        got = drv("committed-offsets", {"group": group, "topic": topic, "partitions": [0], "config": cfg[tenant]})
        assert got["offsets"] == {"0": n}, (tenant, got)
        groups = [g["group_id"] for g in drv("list-groups", {"config": cfg[tenant]})["groups"]]
        assert group in groups and all("~" not in g for g in groups), groups
    # The super user sees both, under their internal names.
    root = sasl(client, "root")
    listed = drv("list-topics", {"config": root})["topics"]
    assert "alice~" + topic in listed and "bob~" + topic in listed, listed


@pytest.mark.parametrize("client", CLIENTS)
def test_a_bound_user_shares_its_tenant(tenancy_broker, client):
    drv = driver(client, tenancy_broker.addresses["SASL_PLAINTEXT"])
    topic = "bound-%s" % client
    assert create(drv, sasl(client, "alice-ops"), topic) is None
    assert topic in drv("list-topics", {"config": sasl(client, "alice")})["topics"]
    assert topic not in drv("list-topics", {"config": sasl(client, "bob")})["topics"]


@pytest.mark.parametrize("client", CLIENTS)
def test_another_tenants_topic_answers_as_missing(tenancy_broker, client):
    drv = driver(client, tenancy_broker.addresses["SASL_PLAINTEXT"])
    topic = "private-%s" % client
    assert create(drv, sasl(client, "alice"), topic) is None
    bob = sasl(client, "bob")
    assert topic not in drv("list-topics", {"config": bob})["topics"]
    # By its internal name: not a legal topic name for a client.
    assert create(drv, bob, "alice~" + topic) == "INVALID_TOPIC_EXCEPTION"
    out = drv("describe-topics", {"topics": ["alice~" + topic], "config": bob})
    assert out["topics"][0]["error"] in ("INVALID_TOPIC_EXCEPTION", "UNKNOWN_TOPIC_OR_PARTITION"), out


def test_a_principal_with_the_separator_cannot_log_in(tenancy_broker):
    drv = driver("java", tenancy_broker.addresses["SASL_PLAINTEXT"])
    cfg = dict(sasl("java", "eve~x"), **{"request.timeout.ms": "5000", "default.api.timeout.ms": "5000"})
    try:
        out = drv.call("list-topics", {"config": cfg}, timeout=60)
    except DriverError as e:
        out = {"error": str(e)}
    text = json.dumps(out)
    assert "SaslAuthenticationException" in text or "SASL_AUTHENTICATION_FAILED" in text, text
    assert "may not contain '~'" in text, text


def test_the_anonymous_tenant_works_with_plain_kcat(tenancy_broker):
    kcat = driver("kcat", tenancy_broker.bootstrap)  # the PLAINTEXT listener: tenant "dev"
    topic = "dev-orders"
    out = kcat("produce", {"topic": topic, "records": [{"key": None, "value": b64("hello"), "partition": 0}]})
    assert [r["error"] for r in out["records"]] == [None], out
    got = kcat("consume", {"topic": topic, "partitions": [0], "from": "beginning", "max_records": 1,
                           "timeout_ms": 10000})
    assert values(got) == ["hello"]
    if "confluent" in CLIENTS:
        conf = driver("confluent", tenancy_broker.addresses["SASL_PLAINTEXT"])
        assert topic not in conf("list-topics", {"config": sasl("confluent", "alice")})["topics"]
        assert "dev~" + topic in conf("list-topics", {"config": sasl("confluent", "root")})["topics"]


def test_a_group_or_transactional_id_naming_another_tenant_stays_in_its_own(tenancy_broker):
    """Hostile: group ids and transactional ids may hold '~' in Kafka (only topic names may
    not), so bob can name alice's internal group "alice~g". It is bob's own group under that
    name (bob~alice~g), never alice's g: alice's offsets are untouched and bob's commit is
    seen only by bob (tests/unit/broker/tenant_names_test.cc maps every such request field)."""
    if "confluent" not in CLIENTS:
        pytest.skip("needs confluent-kafka")
    drv = driver("confluent", tenancy_broker.addresses["SASL_PLAINTEXT"])
    alice, bob, root = sasl("confluent", "alice"), sasl("confluent", "bob"), sasl("confluent", "root")
    topic, group = "escape-orders", "escape-billing"
    for who, cfg in (("alice", alice), ("bob", bob)):
        assert create(drv, cfg, topic) is None
        out = drv("produce", {"topic": topic, "acks": "all", "config": cfg,
                              "records": [{"key": None, "value": b64("%s-%d" % (who, i)), "partition": 0}
                                          for i in range(4)]})
        assert [r["error"] for r in out["records"]] == [None] * 4, out
    out = drv("group-consume", {"topic": topic, "group": group, "max_records": 1, "timeout_ms": 20000,
                                "idle_ms": 1000, "commit": "sync", "from": "earliest", "config": alice})
    assert len(out["records"]) == 1, out
    hostile = "alice~" + group
    out = drv("group-consume", {"topic": topic, "group": hostile, "max_records": 3, "timeout_ms": 20000,
                                "idle_ms": 1000, "commit": "sync", "from": "earliest", "config": bob})
    assert values(out) == ["bob-0", "bob-1", "bob-2"], out  # bob's own topic, through the hostile name
    got = drv("committed-offsets", {"group": group, "topic": topic, "partitions": [0], "config": alice})
    assert got["offsets"] == {"0": 1}, got  # alice's group did not move
    got = drv("committed-offsets", {"group": hostile, "topic": topic, "partitions": [0], "config": bob})
    assert got["offsets"] == {"0": 3}, got
    assert hostile not in [g["group_id"] for g in drv("list-groups", {"config": alice})["groups"]]
    groups = [g["group_id"] for g in drv("list-groups", {"config": root})["groups"]]
    assert "bob~" + hostile in groups and "alice~" + group in groups, groups
