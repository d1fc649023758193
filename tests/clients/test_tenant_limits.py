"""Tenant limits, administration and metrics (--tenancy; docs/tenancy.md "Limits",
"Administration", docs/metrics.md): with real clients (confluent-kafka through the
driver, and the `ketch tenant` CLI), one broker, several tenants.

- alice (ketch.toml [[tenants]]) has max_topics = 3 and max_partitions = 6: a topic
  over either is answered POLICY_VIOLATION (Kafka's code when its
  create.topic.policy refuses a topic: CreateTopicsRequest / PolicyViolationException);
  so is CreatePartitions over max_partitions. bob has no limits and is not refused.
- carol (max_storage_bytes, set through the admin API) is refused Produce with
  POLICY_VIOLATION once her partitions hold more than the limit.
- dave (producer_byte_rate through the admin API) is throttled: the client sees
  throttle_time_ms > 0 (librdkafka's statistics) while bob, producing at the same
  time, sees none (Kafka's ClientQuotaManager semantics: KafkaApis.handleProduceRequest
  records the request's bytes; QuotaUtils.throttleTime; KIP-219 muting).
- /metrics carries the tenant label with the counts of each tenant's refusals and
  throttles; only super users reach /api/v1/tenants; a tenant name with '~' is
  refused with 400 and a JSON error.
"""

import base64
import json
import socket
import struct
import subprocess
import threading
import urllib.request
from types import SimpleNamespace

import pytest

from conftest import BrokerProcess, Driver, _ketch_binary, _missing, wait_for
from registry_util import Rest

USERS = {"alice": "alice-pw", "bob": "bob-pw", "carol": "carol-pw", "dave": "dave-pw", "erin": "erin-pw", "frank": "frank-pw",
         "gina": "gina-pw", "hana": "hana-pw", "ivy": "ivy-pw", "lee": "lee-pw", "max": "max-pw", "root": "root-pw"}
TOML_TENANTS = """
[tenant_defaults]
max_connections = 100

[[tenants]]
name = "alice"
max_topics = 3
max_partitions = 6
"""


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    run = tmp_path_factory.mktemp("tenant-limits")
    toml = run / "ketch.toml"
    toml.write_text("".join('[[users]]\nname = "%s"\npassword = "%s"\n' % kv for kv in USERS.items())
                    + TOML_TENANTS)
    (run / "data").mkdir()
    b = BrokerProcess(_ketch_binary(), run / "data", run, [
        "--config", str(toml), "--tenancy", "--super-users", "User:root", "--schema-registry=false",
        "--quota-window-num", "3", "--metrics-listen", "127.0.0.1:0",
        "--listener", "SASL_PLAINTEXT=SASL_PLAINTEXT://127.0.0.1:0"])
    b.start()
    listeners = json.loads((run / "data" / "listeners.json").read_text())
    b.addresses = {name: v["address"] for name, v in listeners["listeners"].items()}
    b.console_url, b.metrics_url = listeners["console"], listeners["metrics"]
    yield b
    b.stop()


@pytest.fixture(scope="module")
def root(broker):
    return Rest(broker.console_url, "root", USERS["root"])


@pytest.fixture(scope="module")
def drv(broker):
    why = _missing("confluent")
    if why:
        pytest.skip(why)
    return Driver("confluent", SimpleNamespace(bootstrap=broker.addresses["SASL_PLAINTEXT"]))


def sasl(user):
    return {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "PLAIN", "sasl.username": user,
            "sasl.password": USERS[user]}


def create(drv, user, name, partitions):
    return drv("create-topics", {"topics": [{"name": name, "partitions": partitions, "replication_factor": 1}],
                                 "config": sasl(user)})["results"][0]["error"]


def metrics(broker):
    """{'name{labels}': value} of the tenant samples."""
    text = urllib.request.urlopen(broker.metrics_url, timeout=10).read().decode()
    out = {}
    for line in text.splitlines():
        if line.startswith("ketch_tenant_"):
            key, _, value = line.rpartition(" ")
            out[key] = float(value)
    return out


def refused(broker, tenant, limit):
    return metrics(broker).get('ketch_tenant_refused_total{tenant="%s",limit="%s"}' % (tenant, limit), 0)


def ketch(*args, check=True):
    p = subprocess.run([str(_ketch_binary()), *map(str, args)], capture_output=True, timeout=60)
    if check and p.returncode != 0:
        raise AssertionError("ketch %s exited %d: %s" % (args, p.returncode, p.stderr.decode()))
    return p


def test_topics_and_partitions_over_the_limit_are_policy_violations(broker, drv):
    assert create(drv, "alice", "a1", 2) is None
    assert create(drv, "alice", "a2", 1) is None  # 2 topics, 3 partitions
    assert create(drv, "alice", "a3", 4) == "POLICY_VIOLATION"  # 7 partitions: over 6
    assert refused(broker, "alice", "max_partitions") == 1
    assert drv("create-partitions", {"topic": "a1", "count": 6, "config": sasl("alice")})["error"] \
        == "POLICY_VIOLATION"
    assert refused(broker, "alice", "max_partitions") == 2
    assert drv("create-partitions", {"topic": "a1", "count": 3, "config": sasl("alice")})["error"] is None
    assert create(drv, "alice", "a3", 1) is None  # 3 topics, 5 partitions
    assert create(drv, "alice", "a4", 1) == "POLICY_VIOLATION"  # a 4th topic: over 3
    assert refused(broker, "alice", "max_topics") == 1
    # bob has the defaults (no topic or partition limit): the same names, more partitions.
    assert create(drv, "bob", "a1", 8) is None
    assert create(drv, "bob", "a4", 8) is None
    assert refused(broker, "bob", "max_partitions") == 0 and refused(broker, "bob", "max_topics") == 0
    listed = drv("list-topics", {"config": sasl("alice")})["topics"]
    assert {"a1", "a2", "a3"} <= set(listed) and "a4" not in listed, listed


def test_auto_creation_obeys_the_limits(broker, drv):
    """alice holds her 3 topics (the test above): a producer's Metadata does not
    auto-create a 4th; it is answered as a topic that may not be auto-created."""
    before = refused(broker, "alice", "max_topics")
    out = drv("produce", {"topic": "auto-made", "acks": "all",
                          "config": {**sasl("alice"), "message.timeout.ms": "3000"},
                          "records": [{"key": None, "value": base64.b64encode(b"v").decode()}]})
    assert out["records"][0]["error"] is not None, out
    assert "auto-made" not in drv("list-topics", {"config": sasl("alice")})["topics"]
    assert refused(broker, "alice", "max_topics") > before


def test_the_console_filters_by_tenant(broker, drv, root):
    assert create(drv, "bob", "filtered", 1) is None
    assert create(drv, "erin", "filtered", 1) is None
    status, body = root.get("/api/v1/topics?tenant=bob")
    assert status == 200, body
    names = {t["name"] for t in body["topics"]}
    assert "bob~filtered" in names and "erin~filtered" not in names, names
    assert {t["tenant"] for t in body["topics"]} == {"bob"}, body


def test_a_tenant_over_its_storage_is_refused_produce(broker, drv, root):
    assert root.post("/api/v1/tenants", {"name": "carol", "limits": {"max_storage_bytes": 20000}})[0] == 201
    assert create(drv, "carol", "logs", 1) is None
    big = [{"key": None, "value": base64.b64encode(b"x" * 1000).decode(), "partition": 0} for _ in range(30)]
    first = drv("produce", {"topic": "logs", "acks": "all", "records": big, "config": sasl("carol")})
    # The limit is checked as each Produce request arrives: the first lands; if the
    # client split the records into several requests, later ones may be refused.
    assert first["records"][0]["error"] is None, first
    assert {r["error"] for r in first["records"]} <= {None, "POLICY_VIOLATION"}, first
    out = drv("produce", {"topic": "logs", "acks": "all", "config": sasl("carol"),
                          "records": [{"key": None, "value": base64.b64encode(b"one more").decode(),
                                       "partition": 0}]})
    assert [r["error"] for r in out["records"]] == ["POLICY_VIOLATION"], out
    assert refused(broker, "carol", "max_storage_bytes") >= 1
    status, body = root.get("/api/v1/tenants/carol")
    assert status == 200 and body["usage"]["storage_bytes"] >= 20000 and body["usage"]["topics"] == 1, body
    # Raising the limit lets her produce again.
    assert root.put("/api/v1/tenants/carol/limits", {"max_storage_bytes": 10 ** 9})[0] == 200
    out = drv("produce", {"topic": "logs", "acks": "all", "config": sasl("carol"),
                          "records": [{"key": None, "value": base64.b64encode(b"again").decode(), "partition": 0}]})
    assert [r["error"] for r in out["records"]] == [None], out


def test_a_tenant_over_its_byte_rate_is_throttled_and_another_is_not(broker, drv, root):
    assert root.post("/api/v1/tenants", {"name": "dave", "limits": {"producer_byte_rate": 65536}})[0] == 201
    assert create(drv, "dave", "flood", 1) is None
    assert create(drv, "bob", "flood", 1) is None
    out = {}

    def flood(user):
        out[user] = drv("produce-flood", {"topic": "flood", "duration_ms": 3000, "value_size": 1000,
                                          "config": sasl(user)})

    threads = [threading.Thread(target=flood, args=(u,)) for u in ("dave", "bob")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out["dave"]["throttle_time_ms_max"] > 0, out["dave"]["throttle_time_ms_max"]
    assert out["bob"]["throttle_time_ms_max"] == 0, out["bob"]["throttle_time_ms_max"]
    m = metrics(broker)
    assert m['ketch_tenant_throttled_responses_total{tenant="dave",limit="producer_byte_rate"}'] > 0, m
    assert m['ketch_tenant_throttled_responses_total{tenant="bob",limit="producer_byte_rate"}'] == 0, m


def test_metrics_carry_the_tenant_label_with_its_counts(broker, drv):
    before = metrics(broker)
    assert create(drv, "erin", "m", 1) is None
    value = base64.b64encode(b"y" * 5000).decode()
    out = drv("produce", {"topic": "m", "acks": "all", "config": sasl("erin"),
                          "records": [{"key": None, "value": value, "partition": 0}]})
    assert out["records"][0]["error"] is None

    def produced():
        m = metrics(broker)
        return m.get('ketch_tenant_bytes_in_total{tenant="erin"}', 0) >= 5000 and m
    m = wait_for(produced, what="erin's produce counted")
    assert m['ketch_tenant_requests_total{tenant="erin"}'] > before.get('ketch_tenant_requests_total{tenant="erin"}', 0)
    # Nobody else's bytes are counted under erin, and erin's are not under bob's.
    assert m['ketch_tenant_bytes_in_total{tenant="erin"}'] < 5000 + 2000, m
    assert m.get('ketch_tenant_refused_total{tenant="erin",limit="max_topics"}') == 0
    assert all("tenant=" in k for k in m)
    # Fetch bytes out are counted under erin too: her record read back once.
    out_before = m.get('ketch_tenant_bytes_out_total{tenant="erin"}', 0)
    got = drv("consume", {"topic": "m", "partitions": [0], "from": "beginning", "max_records": 1,
                          "timeout_ms": 20000, "config": sasl("erin")})
    assert len(got["records"]) == 1, got
    m = wait_for(lambda: (lambda m: m.get('ketch_tenant_bytes_out_total{tenant="erin"}', 0) >= out_before + 5000
                          and m)(metrics(broker)), what="erin's fetch counted")
    assert m['ketch_tenant_bytes_out_total{tenant="erin"}'] < out_before + 5000 + 64 * 1024, m


def _request(sock, api_key, version, corr, body=b""):
    """A non-flexible request (header v1, client id "t") and its answer's payload, or None
    when the broker closed the connection."""
    head = struct.pack(">hhih", api_key, version, corr, 1) + b"t"
    sock.sendall(struct.pack(">i", len(head) + len(body)) + head + body)
    size = b""
    while len(size) < 4:
        chunk = sock.recv(4 - len(size))
        if not chunk:
            return None
        size += chunk
    want, got = struct.unpack(">i", size)[0], b""
    while len(got) < want:
        chunk = sock.recv(want - len(got))
        if not chunk:
            return None
        got += chunk
    return got


def _logged_in(broker, user):
    """A raw SASL/PLAIN connection (SaslHandshake v1, SaslAuthenticate v0) that has sent its
    first request after the login (Metadata v1 for all topics; ApiVersions and the SASL
    requests take no place: tenant_scoping.cc): None if the broker closed it."""
    host, port = broker.addresses["SASL_PLAINTEXT"].rsplit(":", 1)
    s = socket.create_connection((host, int(port)), timeout=10)
    try:
        assert struct.unpack(">h", _request(s, 17, 1, 1, struct.pack(">h", 5) + b"PLAIN")[4:6])[0] == 0
        token = b"\0%s\0%s" % (user.encode(), USERS[user].encode())
        assert struct.unpack(">h", _request(s, 36, 0, 2, struct.pack(">i", len(token)) + token)[4:6])[0] == 0
        answer = _request(s, 3, 1, 3, struct.pack(">i", -1))
    except (ConnectionError, socket.timeout):
        answer = None
    if answer is None:
        s.close()
        return None
    return s


def test_a_tenant_over_its_connections_is_closed_and_counted(broker, root):
    """max_connections (docs/tenancy.md "Limits"): a tenant's connection over the limit is
    closed at its first request after the login (other than ApiVersions); ketch_tenant_refused_total{limit=
    "max_connections"} counts it and ketch_tenant_connections_active shows the one kept;
    a closed connection gives its place back. Another tenant is not limited by it."""
    assert root.post("/api/v1/tenants", {"name": "ivy", "limits": {"max_connections": 1}})[0] == 201
    first = _logged_in(broker, "ivy")
    assert first is not None
    assert _logged_in(broker, "ivy") is None  # over the limit: closed
    others = [_logged_in(broker, "bob") for _ in range(2)]
    assert all(others)
    m = metrics(broker)
    assert m['ketch_tenant_refused_total{tenant="ivy",limit="max_connections"}'] == 1, m
    assert m['ketch_tenant_connections_active{tenant="ivy"}'] == 1, m
    assert m.get('ketch_tenant_refused_total{tenant="bob",limit="max_connections"}', 0) == 0, m
    first.close()
    for s in others:
        s.close()
    wait_for(lambda: metrics(broker)['ketch_tenant_connections_active{tenant="ivy"}'] == 0,
             what="ivy's connection given back")
    again = _logged_in(broker, "ivy")
    assert again is not None
    again.close()


def test_a_tenant_over_its_fetch_rate_is_throttled_and_its_errors_are_counted(broker, drv, root):
    """consumer_byte_rate (Kafka's ClientQuotaManager on Fetch response bytes, keyed by the
    tenant): a fetch of 100 KiB at 10 KB/s is answered with a throttle, counted under lee's
    label only. A request refused as a whole (DescribeClientQuotas: cluster administration,
    CLUSTER_AUTHORIZATION_FAILED for a tenant) is counted in ketch_tenant_errors_total."""
    assert root.post("/api/v1/tenants", {"name": "lee", "limits": {"consumer_byte_rate": 10000}})[0] == 201
    assert create(drv, "lee", "slow-read", 1) is None
    value = base64.b64encode(b"r" * 1024).decode()
    for _ in range(4):  # 25 at a time: the driver's arguments stay short
        out = drv("produce", {"topic": "slow-read", "acks": "all", "config": sasl("lee"),
                              "records": [{"key": None, "value": value, "partition": 0}] * 25})
        assert [r["error"] for r in out["records"]] == [None] * 25
    key = 'ketch_tenant_throttled_responses_total{tenant="%s",limit="consumer_byte_rate"}'
    got = drv("consume", {"topic": "slow-read", "partitions": [0], "from": "beginning", "max_records": 100,
                          "timeout_ms": 30000, "config": sasl("lee")})
    assert len(got["records"]) == 100, len(got["records"])
    m = metrics(broker)
    assert m[key % "lee"] > 0, m
    assert m.get(key % "bob", 0) == 0, m
    errors = 'ketch_tenant_errors_total{tenant="lee"}'
    before = m.get(errors, 0)
    p = ketch("quota", "describe", "-b", broker.addresses["SASL_PLAINTEXT"], "-X", "security.protocol=SASL_PLAINTEXT",
              "-X", "sasl.mechanism=PLAIN", "-X", "sasl.username=lee", "-X", "sasl.password=" + USERS["lee"],
              check=False)
    assert p.returncode != 0 and b"CLUSTER_AUTHORIZATION_FAILED" in p.stderr + p.stdout, (p.stdout, p.stderr)
    assert metrics(broker)[errors] == before + 1


def test_a_tenant_over_its_request_rate_is_throttled(broker, drv, root):
    """request_percentage (Kafka's request quota: handler time in percent of one thread over
    the quota window, KafkaApis / ClientRequestQuotaManager), keyed by the tenant: a tenant
    allowed 0.001% is throttled by its first few requests; another tenant is not."""
    assert root.post("/api/v1/tenants", {"name": "max", "limits": {"request_percentage": 0.001}})[0] == 201
    key = 'ketch_tenant_throttled_responses_total{tenant="%s",limit="request_percentage"}'
    assert create(drv, "max", "busy", 1) is None
    for _ in range(3):
        drv("list-topics", {"config": sasl("max")})
    wait_for(lambda: metrics(broker).get(key % "max", 0) > 0, what="max's requests throttled")
    assert metrics(broker).get(key % "bob", 0) == 0


def test_a_tenants_produce_and_fetch_durations_are_histograms_with_its_label(broker, drv):
    """ketch_tenant_request_duration_seconds{tenant, api}: each Produce and Fetch of a tenant's
    connections is counted in its own histogram (docs/metrics.md), with its requests only."""
    key = 'ketch_tenant_request_duration_seconds_%s{tenant="%s",api="%s"%s}'
    before = metrics(broker)
    assert create(drv, "hana", "d", 1) is None
    out = drv("produce", {"topic": "d", "acks": "all", "config": sasl("hana"),
                          "records": [{"key": None, "value": base64.b64encode(b"z").decode(), "partition": 0}]})
    assert out["records"][0]["error"] is None
    out = drv("consume", {"topic": "d", "partitions": [0], "from": "beginning", "max_records": 1,
                          "timeout_ms": 20000, "config": sasl("hana")})
    assert len(out["records"]) == 1, out

    def counted():
        m = metrics(broker)
        return all(m.get(key % ("count", "hana", api, ""), 0) >= 1 for api in ("Produce", "Fetch")) and m
    m = wait_for(counted, what="hana's Produce and Fetch timed")
    for api in ("Produce", "Fetch"):
        count = m[key % ("count", "hana", api, "")]
        assert m[key % ("bucket", "hana", api, ',le="+Inf"')] == count, m
        assert m[key % ("sum", "hana", api, "")] > 0, m
        # Buckets are cumulative, as Prometheus reads them.
        les = [v for k, v in m.items() if k.startswith(key % ("bucket", "hana", api, ",le="))]
        assert les == sorted(les), les
    # hana's series start with her first request, and count her requests only.
    assert not any('tenant="hana"' in k for k in before), before
    timed = sum(m[key % ("count", "hana", api, "")] for api in ("Produce", "Fetch"))
    assert timed <= m['ketch_tenant_requests_total{tenant="hana"}'], m


def test_a_client_quota_throttle_is_counted_under_the_tenant(broker, drv):
    """A client quota (AlterClientQuotas on user gina, by the super user through `ketch quota
    alter`) that throttles gina's producer is counted under her tenant as well as in the
    broker-wide ketch_quota_throttled_requests_total (Kafka's ClientQuotaManager throttles
    by user: KafkaApis.handleProduceRequest)."""
    auth = ["-b", broker.addresses["SASL_PLAINTEXT"], "-X", "security.protocol=SASL_PLAINTEXT",
            "-X", "sasl.mechanism=PLAIN", "-X", "sasl.username=root", "-X", "sasl.password=" + USERS["root"]]
    ketch("quota", "alter", *auth, "--entity", "user=gina", "--add", "producer_byte_rate=65536")
    assert create(drv, "gina", "q", 1) is None
    out = drv("produce-flood", {"topic": "q", "duration_ms": 3000, "value_size": 1000, "config": sasl("gina")})
    assert out["throttle_time_ms_max"] > 0, out
    m = metrics(broker)
    assert m['ketch_tenant_quota_throttled_total{tenant="gina",quota="producer_byte_rate"}'] > 0, m
    assert m['ketch_tenant_quota_throttled_total{tenant="bob",quota="producer_byte_rate"}'] == 0, m
    # Not the tenant's own rate limit: gina has none.
    assert m['ketch_tenant_throttled_responses_total{tenant="gina",limit="producer_byte_rate"}'] == 0, m


def test_only_super_users_administer_tenants(broker, root):
    assert Rest(broker.console_url, "alice", USERS["alice"]).get("/api/v1/tenants")[0] == 403
    status, body = root.post("/api/v1/tenants", {"name": "a~b"})
    assert status == 400 and body["error_code"] == 400 and "~" in body["message"], body
    status, body = root.post("/api/v1/tenants", {"name": "t", "limits": {"max_partitions": -1}})
    assert status == 400 and "max_partitions" in body["message"], body
    assert root.post("/api/v1/tenants", {"name": "t", "limits": {"nope": 1}})[0] == 400
    assert root.put("/api/v1/tenants/nobody/limits", {"max_topics": 1})[0] == 404
    assert root.delete("/api/v1/tenants/default")[0] == 400


def test_cli_tenant_commands_end_to_end(broker, drv, root):
    auth = ("--console-url", broker.console_url, "--user", "root", "--password", USERS["root"])
    created = json.loads(ketch("tenant", "create", "frank", "max_topics=1", "--json", *auth).stdout)
    assert created["name"] == "frank" and created["limits"] == {"max_topics": 1}, created
    assert "frank" in ketch("tenant", "list", *auth).stdout.decode()
    ketch("tenant", "set-limits", "frank", "max_partitions=5", *auth)
    ketch("tenant", "bind-user", "frank", "erin2", *auth)
    desc = json.loads(ketch("tenant", "describe", "frank", "--json", *auth).stdout)
    assert desc["limits"] == {"max_topics": 1, "max_partitions": 5} and desc["users"] == ["erin2"], desc
    # frank's user creates its one topic; a second is over max_topics.
    assert create(drv, "frank", "only", 1) is None
    assert create(drv, "frank", "second", 1) == "POLICY_VIOLATION"
    assert "frank~only" in drv("list-topics", {"config": sasl("root")})["topics"]
    deleted = json.loads(ketch("tenant", "delete", "frank", "--json", *auth).stdout)
    assert deleted["deleted"]["topics"] == 1, deleted
    assert root.get("/api/v1/tenants/frank")[0] == 404
    wait_for(lambda: "frank~only" not in drv("list-topics", {"config": sasl("root")})["topics"],
             what="frank's topic deleted")
    # Refusals reach the user: the console's message, exit code 1.
    p = ketch("tenant", "create", "bad~name", *auth, check=False)
    assert p.returncode == 1 and b"400" in p.stderr, p.stderr
    p = ketch("tenant", "list", "--console-url", broker.console_url, "--user", "alice", "--password",
              USERS["alice"], check=False)
    assert p.returncode == 1 and b"403" in p.stderr, p.stderr


@pytest.fixture(scope="module")
def acl_broker(tmp_path_factory):
    run = tmp_path_factory.mktemp("tenant-acls")
    toml = run / "ketch.toml"
    toml.write_text("".join('[[users]]\nname = "%s"\npassword = "%s"\n' % (u, USERS[u])
                            for u in ("alice", "bob", "root")))
    (run / "data").mkdir()
    b = BrokerProcess(_ketch_binary(), run / "data", run, [
        "--config", str(toml), "--tenancy", "--authorizer", "--super-users", "User:root",
        "--schema-registry=false", "--listener", "SASL_PLAINTEXT=SASL_PLAINTEXT://127.0.0.1:0"])
    b.start()
    listeners = json.loads((run / "data" / "listeners.json").read_text())
    b.addresses = {name: v["address"] for name, v in listeners["listeners"].items()}
    yield b
    b.stop()


def test_a_tenant_admin_cannot_grant_itself_another_tenants_resources(acl_broker):
    why = _missing("confluent")
    if why:
        pytest.skip(why)
    d = Driver("confluent", SimpleNamespace(bootstrap=acl_broker.addresses["SASL_PLAINTEXT"]))

    def acl(rtype, name, principal, op):
        return {"resource_type": rtype, "name": name, "principal": principal, "host": "*", "operation": op,
                "permission": "ALLOW"}
    # root (a super user, internal names): bob owns his topic; alice may alter the cluster (ACL admin).
    out = d("create-acls", {"config": sasl("root"), "acls": [acl("TOPIC", "bob~secret", "User:bob", "ALL"),
                                                              acl("CLUSTER", "kafka-cluster", "User:alice", "ALTER")]})
    assert [r["error"] for r in out["results"]] == [None, None], out
    assert create(d, "bob", "secret", 1) is None
    # alice names bob's internal topic: it is her own resource "bob~secret" (internally alice~bob~secret).
    out = d("create-acls", {"config": sasl("alice"), "acls": [acl("TOPIC", "bob~secret", "User:alice", "READ")]})
    assert [r["error"] for r in out["results"]] == [None], out
    # An ACL on the cluster written by a tenant is on its tenant's cluster, never the shared one
    # (docs/tenancy.md "Tenant admins").
    out = d("create-acls", {"config": sasl("alice"), "acls": [acl("CLUSTER", "kafka-cluster", "User:alice", "ALL")]})
    assert [r["error"] for r in out["results"]] == [None], out
    listed = d("describe-acls", {"config": sasl("root")})["acls"]
    alices = sorted(a["name"] for a in listed if a["principal"] == "User:alice")
    assert alices == ["alice~bob~secret", "alice~kafka-cluster", "kafka-cluster"], listed
    # And bob's topic stays out of her reach: she cannot even see it.
    assert "secret" not in d("list-topics", {"config": sasl("alice")})["topics"]
