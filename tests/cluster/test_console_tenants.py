"""A tenant's user sees its own tenant's groups, transactional ids and traffic
of every broker through the console of any one, and nothing of another
tenant's (docs/cluster.md "The console", docs/design/console.md "Cluster-wide
traffic and clients"). Its console does not forward Kafka requests as the
inter-broker principal (the other broker would answer in internal names): it
asks each other broker for its page rendered there for the user
(ConsolePeer), where the broker scopes the user's in-process requests to its
tenant as it scopes any of its connections.

Three brokers with --tenancy whose only listener is SASL_PLAINTEXT, calling
each other as User:broker (a super user: ConsolePeer is answered only to a
principal of no tenant). Users alpha and beta are tenants of their own; each
commits offsets for groups and initializes transactional ids until the
cluster's leases (PostgreSQL: ketch_group_leases, ketch_txn_leases) put some
of each on every broker."""

import json
import time

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from conftest import clients
from test_shared_produce import FLUSH, TIMING
from test_shared_tenants import Rest

USERS = {"root": "root-pw", "broker": "broker-pw", "alpha": "alpha-pw", "beta": "beta-pw"}
MECHANISM = "SCRAM-SHA-256"
TENANTS = {"alpha": "a", "beta": "b"}  # each tenant's names start with its own letter


def conf(b, user, **more):
    return {"bootstrap.servers": b.address, "security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": MECHANISM,
            "sasl.username": user, "sasl.password": USERS[user], **more}


def start_three(start_broker, tmp_path):
    toml = tmp_path / "ketch.toml"
    toml.write_text("".join('[[users]]\nname = "%s"\npassword = "%s"\n' % kv for kv in USERS.items()))
    secret = tmp_path / "inter-broker-password"
    secret.write_text(USERS["broker"] + "\n")
    brokers = []
    for n in (1, 2, 3):
        b = start_broker(n, *FLUSH, *TIMING, "--config", str(toml), "--tenancy", "--super-users",
                         "User:root;User:broker", "--listener", "PLAINTEXT=SASL_PLAINTEXT://127.0.0.1:0",
                         "--inter-broker-listener", "PLAINTEXT", "--inter-broker-sasl-mechanism", MECHANISM,
                         "--inter-broker-sasl-username", "broker", "--inter-broker-sasl-password-file", str(secret),
                         console=True)
        listeners = json.loads((b.data_dir / "listeners.json").read_text())
        b.address = listeners["listeners"]["PLAINTEXT"]["address"]
        b.console = {user: Rest(listeners["console"], user, USERS[user]) for user in ("root", "alpha", "beta")}
        brokers.append(b)
    for b in brokers:
        clients.wait_for(lambda: len(AdminClient(conf(b, "root")).list_topics(timeout=10).brokers) == 3,
                         what="broker %s lists the three brokers" % b.address)
    return brokers


def leases(postgres, table, column, tenant):
    """{name in the tenant's own names: node id} of the tenant's leases in `table`."""
    rows = postgres.psql("SELECT convert_from(%s, 'UTF8') || '|' || node_id FROM %s WHERE convert_from(%s, 'UTF8') "
                         "LIKE '%s~%%'" % (column, table, column, tenant))
    return {name.split("~", 1)[1]: int(node) for name, node in (r.rsplit("|", 1) for r in rows)}


def spread(postgres, table, column, tenant, make, prefix):
    """make(name) for prefix-0, prefix-1, ... until the tenant's leases name every broker; the leases."""
    for i in range(40):
        make("%s-%d" % (prefix, i))
        held = clients.wait_for(lambda: (lambda h: h if "%s-%d" % (prefix, i) in h else None)(
            leases(postgres, table, column, tenant)), what="the lease of %s-%d" % (prefix, i))
        if set(held.values()) == {1, 2, 3}:
            return held
    raise AssertionError("40 names of %s do not spread over the three brokers: %s" % (tenant, held))


def use(b, postgres, tenant):
    """The tenant's groups and transactional ids on every broker: ({group: node}, {transactional id: node})."""
    letter = TENANTS[tenant]
    admin = AdminClient(conf(b, tenant))  # kept until its future is done
    admin.create_topics([NewTopic("orders", 1, 1)])["orders"].result(timeout=20)

    def commit(group):
        c = Consumer(conf(b, tenant, **{"group.id": group}))
        c.commit(offsets=[TopicPartition("orders", 0, 0)], asynchronous=False)
        c.close()

    def init(transactional_id):
        Producer(conf(b, tenant, **{"transactional.id": transactional_id})).init_transactions(30)

    groups = spread(postgres, "ketch_group_leases", "group_id", tenant, commit, letter + "-group")
    txns = spread(postgres, "ketch_txn_leases", "transactional_id", tenant, init, letter + "-txn")
    return groups, txns


def listed(console, path, field, key):
    status, page = console.get(path)
    assert status == 200, page
    assert page["unreached_brokers"] == [], page
    return {r[key]: r for r in page[field]}


def committed(b, tenant, group):
    """The group's committed offset of orders-0, read by a real client as the tenant's user."""
    c = Consumer(conf(b, tenant, **{"group.id": group, "enable.auto.commit": False}))
    try:
        return c.committed([TopicPartition("orders", 0)], timeout=20)[0].offset
    finally:
        c.close()


def resets_go_to_the_coordinator(brokers, used):
    """A tenant's user's offset reset of a group another broker coordinates, through the console of one that does
    not: made there for the user (ConsolePeer POST), in its tenant's names; another tenant's user posting the same
    group's name, or its internal name, reaches a group of its own tenant at most, never this one."""
    p = Producer(conf(brokers[0], "alpha"))
    for i in range(5):
        p.produce("orders", b"r%d" % i)
    assert p.flush(30) == 0
    group, node = next((g, n) for g, n in used["alpha"][0].items() if n != 1)
    status, done = brokers[0].console["alpha"].post("/api/v1/groups/%s/offsets" % group,
                                                    {"topic": "orders", "to": "offset", "offset": 3})
    assert status == 200 and done == {"group_id": group, "offsets": [{"topic": "orders", "partition": 0,
                                                                     "offset": 3}]}, done
    for b in brokers:
        assert committed(b, "alpha", group) == 3
    # Through the coordinator's own console as before (its local reset).
    status, done = brokers[node - 1].console["alpha"].post("/api/v1/groups/%s/offsets" % group,
                                                           {"topic": "orders", "to": "latest"})
    assert status == 200 and done["offsets"] == [{"topic": "orders", "partition": 0, "offset": 5}], done
    assert committed(brokers[0], "alpha", group) == 5
    # Beta, through every broker, under alpha's name of the group and its internal name: alpha's stays at 5.
    for b in brokers:
        for name in (group, "alpha~" + group):
            status, answer = b.console["beta"].post("/api/v1/groups/%s/offsets" % name,
                                                    {"topic": "orders", "to": "offset", "offset": 1})
            assert status in (200, 400, 403, 404), (status, answer)
            if status == 200:  # a group of beta's own, on its own orders
                assert committed(b, "beta", name) == 0, answer  # beta's orders has no records: clamped to 0
    assert committed(brokers[0], "alpha", group) == 5
    # The coordinator's refusal is the answer (its status, its JSON), and nothing changes.
    status, err = brokers[0].console["alpha"].post("/api/v1/groups/%s/offsets" % group,
                                                   {"topic": "orders", "to": "sideways"})
    assert status == 400 and json.loads(err)["message"] == "\"to\" must be earliest, latest, timestamp or offset", err
    for b in brokers:
        assert committed(b, "alpha", group) == 5


def test_a_tenants_user_sees_its_own_groups_and_transactions_of_every_broker_and_none_of_another(
        start_broker, postgres, tmp_path):
    brokers = start_three(start_broker, tmp_path)
    used = {tenant: use(brokers[0], postgres, tenant) for tenant in TENANTS}

    for b in brokers:
        for tenant, (groups, txns) in used.items():
            console = b.console[tenant]
            # Its groups, wherever coordinated, each naming its broker, in its own names; none of the other's.
            rows = listed(console, "/api/v1/groups", "groups", "group_id")
            assert {g: r["node_id"] for g, r in rows.items()} == groups, (tenant, rows)
            assert all(r["tenant"] == tenant for r in rows.values()), rows
            rows = listed(console, "/api/v1/transactions", "transactions", "transactional_id")
            assert {t: r["node_id"] for t, r in rows.items()} == txns, (tenant, rows)
            assert all(r["state"] == "Empty" for r in rows.values()), rows
            # Each opened through this console, at its coordinator.
            for group, node in groups.items():
                status, d = console.get("/api/v1/groups/" + group)
                assert status == 200 and d["group_id"] == group, d
                assert [(o["topic"], o["committed_offset"]) for o in d["offsets"]] == [("orders", 0)], d
            for txn, node in txns.items():
                status, d = console.get("/api/v1/transactions/" + txn)
                assert status == 200 and (d["transactional_id"], d["node_id"]) == (txn, node), d
            # The other tenant's names are its own tenant's (unknown): not found.
            other = next(t for t in TENANTS if t != tenant)
            for group in used[other][0]:
                assert console.get("/api/v1/groups/" + group)[0] == 404
            for txn in used[other][1]:
                assert console.get("/api/v1/transactions/" + txn)[0] == 404

    resets_go_to_the_coordinator(brokers, used)

    # The operator sees both tenants' under the internal names, each with its broker.
    rows = listed(brokers[0].console["root"], "/api/v1/transactions", "transactions", "transactional_id")
    expected = {"%s~%s" % (tenant, t): node for tenant, (_, txns) in used.items() for t, node in txns.items()}
    assert {t: r["node_id"] for t, r in rows.items() if "~" in t} == expected, rows


def test_a_tenants_user_sees_its_own_traffic_of_every_broker_and_none_of_another(start_broker, tmp_path):
    brokers = start_three(start_broker, tmp_path)
    client = "tenant-traffic-%d" % time.monotonic_ns()
    alpha = brokers[0].console["alpha"]

    def watching():  # watching starts recording on every broker once broker 1 reaches them
        status, page = alpha.get("/api/v1/traffic?client_id=" + client)
        assert status == 200, page
        return page if page["unreached_brokers"] == [] and len(page["cursor"].split(",")) == 3 else None
    cursor = clients.wait_for(watching, what="alpha's console reaches the three brokers")["cursor"]
    for b in brokers[1:]:  # the same client id, both tenants, through brokers 2 and 3 only
        for user in TENANTS:
            AdminClient(conf(b, user, **{"client.id": client})).list_topics(timeout=10)

    def of_both_tenants():  # the operator's page: every principal's (those of the logins before it too)
        status, page = brokers[0].console["root"].get("/api/v1/traffic?client_id=%s&cursor=%s" % (client, cursor))
        assert status == 200, page
        seen = {(r["node_id"], r["principal"]) for r in page["exchanges"]}
        return seen if {(n, "User:" + u) for n in (2, 3) for u in TENANTS} <= seen else None
    clients.wait_for(of_both_tenants, what="broker 1's console lists both tenants' requests brokers 2 and 3 served")
    # Alpha's page: its own requests of brokers 2 and 3, none of beta's (nor the logins', of no tenant).
    status, page = alpha.get("/api/v1/traffic?client_id=%s&cursor=%s" % (client, cursor))
    assert status == 200 and page["unreached_brokers"] == [], page
    assert {r["principal"] for r in page["exchanges"]} == {"User:alpha"}, page
    assert {r["node_id"] for r in page["exchanges"]} >= {2, 3}, page
