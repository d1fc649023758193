"""A tenant admin (docs/tenancy.md, "Tenant admins"): a principal with ALTER
on its tenant's CLUSTER resource manages ACLs and SCRAM users inside its
tenant through confluent-kafka's AdminClient, the names it gives are its
own, and it neither sees nor touches another tenant's ACLs or users; the
hostile cases (a principal or user name with the separator, a MATCH filter
reaching the super users' wildcard, the default tenant's prefixes) are
refused with Kafka's codes. Super users keep seeing everything under the
internal names.

Kafka's codes: CreateAcls' per-creation INVALID_REQUEST for a binding it
cannot accept (AclControlManager.validateNewAcl), CLUSTER_AUTHORIZATION_FAILED
without ALTER on the cluster (AclApis.handleCreateAcls), UNACCEPTABLE_CREDENTIAL
for a user name it refuses (ScramControlManager.alterCredentials).
"""

import base64
import json
from types import SimpleNamespace

import pytest

from conftest import Driver, _ketch_binary, _missing, BrokerProcess

USERS = {"root": "root-pw", "alice": "alice-pw", "bob": "bob-pw", "default-ops": "d-pw"}


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    run = tmp_path_factory.mktemp("tenant-admin-broker")
    toml = run / "ketch.toml"
    toml.write_text("".join('[[users]]\nname = "%s"\npassword = "%s"\n%s' % (
        name, pw, 'tenant = "default"\n' if name == "default-ops" else "") for name, pw in USERS.items()))
    (run / "data").mkdir()
    b = BrokerProcess(_ketch_binary(), run / "data", run, [
        "--config", str(toml), "--tenancy", "--authorizer", "--super-users", "User:root",
        "--listener", "SASL_PLAINTEXT=SASL_PLAINTEXT://127.0.0.1:0"])
    b.start()
    listeners = json.loads((run / "data" / "listeners.json").read_text())["listeners"]
    b.sasl = listeners["SASL_PLAINTEXT"]["address"]
    yield b
    b.stop()


def plain(user):
    return {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "PLAIN", "sasl.username": user,
            "sasl.password": USERS[user]}


def scram(user, password):
    return {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "SCRAM-SHA-256", "sasl.username": user,
            "sasl.password": password}


@pytest.fixture(scope="module")
def conf(broker):
    why = _missing("confluent")
    if why:
        pytest.skip(why)
    return Driver("confluent", SimpleNamespace(bootstrap=broker.sasl))


def acl(resource_type, name, principal, operation, pattern="LITERAL"):
    return {"resource_type": resource_type, "name": name, "pattern": pattern, "principal": principal,
            "host": "*", "operation": operation, "permission": "ALLOW"}


def create_acls(conf, who, acls):
    return [r["error"] for r in conf("create-acls", {"acls": acls, "config": who})["results"]]


def all_acls(conf, who):
    out = conf("describe-acls", {"filter": {}, "config": who})
    assert out["error"] is None, out
    return out["acls"]


@pytest.fixture(scope="module")
def admins(broker, conf):
    # The super user makes alice and bob the admins of their tenants, by the internal names.
    root = plain("root")
    grants = [acl("CLUSTER", "alice~kafka-cluster", "User:alice", "ALL"),
              acl("CLUSTER", "bob~kafka-cluster", "User:bob", "ALL"),
              acl("CLUSTER", "default~kafka-cluster", "User:default-ops", "ALL")]
    assert create_acls(conf, root, grants) == [None] * 3
    return SimpleNamespace(root=root, alice=plain("alice"), bob=plain("bob"), ops=plain("default-ops"))


@pytest.fixture(scope="module")
def made(conf, admins):
    """alice's admin makes a SCRAM user "ci" and a topic "orders" that ci may use."""
    up = conf("alter-user-scram-credentials", {"upsertions": [{"user": "ci", "password": "ci-pw"}],
                                               "config": admins.alice})
    assert up["results"] == {"ci": None}, up
    topic = "orders"
    assert conf("create-topics", {"topics": [{"name": topic, "partitions": 1, "replication_factor": 1}],
                                  "config": admins.alice})["results"][0]["error"] is None
    grants = [acl("TOPIC", topic, "User:ci", op) for op in ("WRITE", "READ", "DESCRIBE")]
    assert create_acls(conf, admins.alice, grants) == [None] * 3
    return topic


def test_a_tenant_admin_makes_users_and_acls_of_its_own(conf, admins, made):
    topic = made
    # The tenant's names: its user "ci" (internally alice~ci), its topic, its cluster.
    mine = all_acls(conf, admins.alice)
    assert {(a["resource_type"], a["name"], a["principal"]) for a in mine} == {
        ("CLUSTER", "kafka-cluster", "User:alice"), ("TOPIC", topic, "User:ci")}, mine
    # Its users: its own "ci" and the operator's user of the tenant (alice, from ketch.toml).
    users = conf("describe-user-scram-credentials", {"config": admins.alice})["users"]
    assert sorted(users) == ["alice", "ci"] and users["ci"] == {"error": None, "mechanisms": ["SCRAM_SHA_256"]}, users
    # The new user logs in as alice~ci (SCRAM) and is tenant alice's.
    ci = scram("alice~ci", "ci-pw")
    out = conf("produce", {"topic": topic, "config": ci,
                           "records": [{"key": None, "value": base64.b64encode(b"v").decode(), "partition": 0}]})
    assert [r["error"] for r in out["records"]] == [None], out
    assert topic in conf("list-topics", {"config": ci})["topics"]
    # The super user sees the internal names.
    seen = {(a["name"], a["principal"]) for a in all_acls(conf, admins.root)}
    assert ("alice~orders", "User:alice~ci") in seen and ("alice~kafka-cluster", "User:alice") in seen, seen
    root_users = conf("describe-user-scram-credentials", {"config": admins.root})["users"]
    assert "alice~ci" in root_users, root_users


def test_another_tenant_admin_sees_and_touches_nothing_of_it(conf, admins, made):
    bob = admins.bob
    assert {(a["name"], a["principal"]) for a in all_acls(conf, bob)} == {("kafka-cluster", "User:bob")}
    assert sorted(conf("describe-user-scram-credentials", {"config": bob})["users"]) == ["bob"]
    asked = conf("describe-user-scram-credentials", {"users": ["ci"], "config": bob})["users"]
    assert asked["ci"]["error"] == "RESOURCE_NOT_FOUND", asked  # bob~ci: none
    gone = conf("alter-user-scram-credentials", {"deletions": [{"user": "ci"}], "config": bob})
    assert gone["results"] == {"ci": "RESOURCE_NOT_FOUND"}, gone
    # Same names written by bob are bob's: nothing of alice's is deleted.
    deleted = conf("delete-acls", {"filters": [{"resource_type": "TOPIC", "name": "orders", "pattern": "LITERAL"}],
                                   "config": bob})["results"][0]
    assert deleted == {"error": None, "deleted": []}, deleted
    assert _has_ci(conf, admins)
    assert ("alice~orders", "User:alice~ci") in {(a["name"], a["principal"]) for a in all_acls(conf, admins.root)}


def test_hostile_grants_are_refused_and_nothing_leaks(conf, admins, made):
    bob = admins.bob
    before = all_acls(conf, admins.root)
    # Another tenant's user, by its internal name: INVALID_REQUEST.
    assert create_acls(conf, bob, [acl("TOPIC", "x", "User:alice~ci", "READ")]) == ["INVALID_REQUEST"]
    # Another tenant's resource by its internal name is bob's own "alice~orders"... a name a topic cannot have.
    assert create_acls(conf, bob, [acl("TOPIC", "alice~orders", "User:bob", "READ")]) == [None]
    # A user made with the separator: UNACCEPTABLE_CREDENTIAL.
    up = conf("alter-user-scram-credentials", {"upsertions": [{"user": "alice~ci", "password": "x"}],
                                               "config": bob})
    assert up["results"] == {"alice~ci": "UNACCEPTABLE_CREDENTIAL"}, up
    # A MATCH filter reaches the super users' wildcard and others' prefixes: refused.
    out = conf("delete-acls", {"filters": [{"resource_type": "TOPIC", "name": "orders", "pattern": "MATCH"}],
                               "config": bob})["results"][0]
    assert out["error"] == "INVALID_REQUEST", out
    # The default tenant's names have no prefix: a PREFIXED or `*` ACL would reach every tenant.
    refused = create_acls(conf, admins.ops, [acl("TOPIC", "ali", "User:*", "READ", pattern="PREFIXED"),
                                             acl("TOPIC", "*", "User:*", "READ")])
    assert refused == ["INVALID_REQUEST"] * 2, refused
    assert create_acls(conf, admins.ops, [acl("TOPIC", "legacy", "User:default-ops", "READ")]) == [None]
    after = all_acls(conf, admins.root)
    new = [a for a in after if a not in before]
    assert sorted((a["name"], a["principal"]) for a in new) == [
        ("bob~alice~orders", "User:bob"), ("legacy", "User:default-ops")], new
    # A principal without ALTER on its tenant's cluster is not a tenant admin.
    ci = scram("alice~ci", "ci-pw")
    assert create_acls(conf, ci, [acl("TOPIC", "orders", "User:ci", "ALL")]) == ["CLUSTER_AUTHORIZATION_FAILED"]
    up = conf("alter-user-scram-credentials", {"upsertions": [{"user": "x", "password": "x"}], "config": ci})
    assert up["results"] == {"x": "CLUSTER_AUTHORIZATION_FAILED"}, up


def _has_ci(conf, admins):
    return "alice~ci" in conf("describe-user-scram-credentials", {"config": admins.root})["users"]


def test_the_cluster_operations_are_those_of_the_tenants_cluster(conf, admins, made):
    """DescribeCluster's (and Metadata's) cluster_authorized_operations for a tenant's
    principal are computed on its tenant's CLUSTER resource (T~kafka-cluster), as
    authorize_cluster enforces them: alice, with ALL on alice~kafka-cluster only, sees every
    cluster operation (before: none, computed on kafka-cluster). Kafka computes them with
    AuthHelper.authorizedOperations(request, Resource.CLUSTER) once DESCRIBE on the cluster is
    allowed, else 0 (core/src/main/scala/kafka/server/AuthHelper.scala
    computeDescribeClusterResponse; KafkaApis.scala handleTopicMetadataRequest)."""

    def ops(who):
        out = conf("describe-cluster", {"include_authorized_operations": True, "config": who})
        return out["authorized_operations"]

    every = ["ALTER", "ALTER_CONFIGS", "CLUSTER_ACTION", "CREATE", "DESCRIBE", "DESCRIBE_CONFIGS", "IDEMPOTENT_WRITE"]
    assert ops(admins.alice) == every
    assert ops(admins.root) == every
    # A user of alice's tenant with DESCRIBE and DESCRIBE_CONFIGS on its tenant's cluster (the
    # tenant admin writes "kafka-cluster": alice~kafka-cluster) sees exactly those two.
    ci = scram("alice~ci", "ci-pw")
    assert ops(ci) == []  # no DESCRIBE on any cluster: none
    grants = [acl("CLUSTER", "kafka-cluster", "User:ci", op) for op in ("DESCRIBE", "DESCRIBE_CONFIGS")]
    assert create_acls(conf, admins.alice, grants) == [None] * 2
    try:
        assert ops(ci) == ["DESCRIBE", "DESCRIBE_CONFIGS"]
        assert ops(admins.bob) == every  # bob's own cluster, untouched by alice's grants
    finally:
        out = conf("delete-acls", {"filters": [{"resource_type": "CLUSTER", "name": "kafka-cluster",
                                                "pattern": "LITERAL", "principal": "User:ci"}],
                                   "config": admins.alice})["results"][0]
        assert out["error"] is None and len(out["deleted"]) == 2, out
