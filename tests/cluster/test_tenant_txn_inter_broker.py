"""A tenant's transactions through brokers that do not coordinate its
transactional id, over a SASL inter-broker login (docs/cluster.md "Tenants",
"Inter-broker calls"): with --tenancy the only listener is SASL_PLAINTEXT
(named PLAINTEXT), the brokers call each other as User:broker (a super user,
not scoped to a tenant), and a tenant's Java transactional producer
(transaction version 2: the brokers it produces to add its partitions at the
coordinator with AddPartitionsToTxn v5) commits and aborts as asked;
read_committed sees its commits only, under its own names."""

import base64
import json
import types

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from conftest import clients
from test_shared_produce import FLUSH, TIMING
import test_inter_broker_security as inter_broker
from test_txn_v2 import Traffic

USERS = {"root": "root-pw", "broker": "broker-pw", "team": "team-pw"}
MECHANISM = "SCRAM-SHA-256"
PARTITIONS = inter_broker.PARTITIONS  # records() writes one to each


def rdkafka(user):
    return {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": MECHANISM, "sasl.username": user,
            "sasl.password": USERS[user]}


def java(user):
    return {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": MECHANISM,
            "sasl.jaas.config": 'org.apache.kafka.common.security.scram.ScramLoginModule required '
                                'username="%s" password="%s";' % (user, USERS[user])}


def records(tag):
    return inter_broker.records("orders", tag)


def test_a_tenants_transactions_commit_through_brokers_that_are_not_the_coordinator(start_broker, tmp_path):
    if clients._missing("java"):
        pytest.skip("java driver not built")
    toml = tmp_path / "ketch.toml"
    toml.write_text("".join('[[users]]\nname = "%s"\npassword = "%s"\n' % kv for kv in USERS.items()))
    secret = tmp_path / "inter-broker-password"
    secret.write_text(USERS["broker"] + "\n")
    brokers = [start_broker(n, *FLUSH, *TIMING, "--config", str(toml), "--tenancy",
                            "--super-users", "User:root;User:broker",
                            "--listener", "PLAINTEXT=SASL_PLAINTEXT://127.0.0.1:0",
                            "--inter-broker-listener", "PLAINTEXT", "--inter-broker-sasl-mechanism", MECHANISM,
                            "--inter-broker-sasl-username", "broker",
                            "--inter-broker-sasl-password-file", str(secret), console=True)
               for n in (1, 2, 3)]
    for b in brokers:
        b.address = json.loads((b.data_dir / "listeners.json").read_text())["listeners"]["PLAINTEXT"]["address"]
    bootstrap = ",".join(b.address for b in brokers)
    admin = AdminClient({"bootstrap.servers": brokers[0].address, **rdkafka("team")})
    admin.create_topics([NewTopic("orders", PARTITIONS, 1)])["orders"].result(timeout=20)
    for b in brokers:
        clients.wait_for(lambda: len(AdminClient({"bootstrap.servers": b.address, **rdkafka("team")}).list_topics(
            timeout=10).topics.get("orders").partitions) == PARTITIONS, what="broker %s has the topic" % b.address)

    traffic = [Traffic(b, ("root", USERS["root"])) for b in brokers]
    driver = clients.Driver("java", types.SimpleNamespace(bootstrap=bootstrap))
    config = {**java("team"), "client.id": "team-txn-producer", "delivery.timeout.ms": "20000",
              "request.timeout.ms": "10000", "max.block.ms": "20000"}
    txns = [{"commit": True, "records": records("c1")}, {"commit": False, "records": records("ab")},
            {"commit": True, "records": records("c2")}]
    res = driver("txn-produce", {"transactional_id": "etl", "transactions": txns, "config": config})
    assert res["transactions"] == [{"error": None}] * 3, res

    # The brokers that are not the coordinator added the partitions there, logged in as User:broker.
    answers = inter_broker.forwarded_adds(traffic, "team-txn-producer")
    assert all(a["response"]["error_code"] == 0 for a in answers), answers

    helper = clients.Driver(clients.HELPER, types.SimpleNamespace(bootstrap=brokers[1].address))
    got = helper("consume", {"topic": "orders", "from": "beginning", "timeout_ms": 10000,
                             "max_records": 2 * PARTITIONS, "isolation_level": "read_committed",
                             "config": rdkafka("team")})
    values = sorted(base64.b64decode(r["value"]).decode() for r in got["records"])
    assert values == sorted("%s-%d" % (t, p) for t in ("c1", "c2") for p in range(PARTITIONS)), values
