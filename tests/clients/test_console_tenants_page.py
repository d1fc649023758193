"""The console filtered by tenant (--tenancy; docs/console.md "Tenants") in a real browser
(Debian's chromium driven by puppeteer-core, tests/console/browser/tenants_page.mjs), and the
API under it: tenants alice and bob each create a topic "orders", consume it in a group "g"
(confluent-kafka; alice's consumer pushes its metrics, KIP-714) with client ids alice-app and
bob-app while the traffic inspector records. A super user's pages show both tenants and, with
the selector (?tenant=alice), alice's topics, groups, traffic and clients only; alice's pages
show her own names and nothing of bob's, and ?tenant=bob is refused (403). Screenshots go to
build/console-screenshots/."""

import base64
import json
import os
import shutil
import subprocess
from types import SimpleNamespace
from pathlib import Path

import pytest

from conftest import REPO, BrokerProcess, Driver, _ketch_binary, _missing, eventually
from registry_util import Rest, stop_broker

BROWSER_DIR = REPO / "tests" / "console" / "browser"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
USERS = {"root": "root-pw", "alice": "alice-pw", "bob": "bob-pw"}


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    run = tmp_path_factory.mktemp("console-tenants")
    toml = run / "ketch.toml"
    toml.write_text("".join('[[users]]\nname = "%s"\npassword = "%s"\n' % kv for kv in USERS.items()))
    (run / "data").mkdir()
    b = BrokerProcess(_ketch_binary(), run / "data", run, [
        "--config", str(toml), "--tenancy", "--super-users", "User:root", "--schema-registry=false",
        "--listener", "SASL_PLAINTEXT=SASL_PLAINTEXT://127.0.0.1:0"])
    b.start()
    listeners = json.loads((run / "data" / "listeners.json").read_text())
    b.console_url = listeners["console"]
    b.sasl = listeners["listeners"]["SASL_PLAINTEXT"]["address"]
    yield b
    stop_broker(b)


def sasl(user, **extra):
    return {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "PLAIN", "sasl.username": user,
            "sasl.password": USERS[user], "client.id": user + "-app", **extra}


@pytest.fixture(scope="module")
def tenants(broker):
    why = _missing("confluent")
    if why:
        pytest.skip(why)
    drv = Driver("confluent", SimpleNamespace(bootstrap=broker.sasl))
    root = Rest(broker.console_url, "root", USERS["root"])
    for user in ("alice", "bob"):
        assert root.get("/api/v1/traffic?limit=1")[0] == 200  # the inspector records for the next 60 s
        out = drv("create-topics", {"topics": [{"name": "orders", "partitions": 1, "replication_factor": 1}],
                                    "config": sasl(user)})
        assert out["results"][0]["error"] is None, out
        out = drv("produce", {"topic": "orders", "config": sasl(user),
                              "records": [{"key": None, "value": base64.b64encode(b"v").decode(), "partition": 0}]})
        assert out["records"][0]["error"] is None, out
        if user == "bob":  # bob owns more than alice: an Overview counting both would show it
            out = drv("create-topics", {"topics": [{"name": "bob-extra", "partitions": 3, "replication_factor": 1}],
                                        "config": sasl(user)})
            assert out["results"][0]["error"] is None, out
        push = {"enable.metrics.push": True} if user == "alice" else {}
        drv("group-consume", {"topic": "orders", "group": "g", "max_records": 1, "timeout_ms": 12000,
                              "idle_ms": 10000, "from": "earliest", "config": sasl(user, **push)})

    def pushed():
        clients = root.get("/api/v1/clients")[1]["clients"]
        mine = [c for c in clients if c["client_id"] == "alice-app" and c["pushes"] > 0]
        assert mine and mine[0]["tenant"] == "alice", clients
        return mine[0]["client_instance_id"]
    return SimpleNamespace(root=root, alice=Rest(broker.console_url, "alice", USERS["alice"]),
                           bob=Rest(broker.console_url, "bob", USERS["bob"]),
                           alice_client=eventually(pushed, timeout=20, interval=0.5))


def test_the_api_filters_by_tenant(tenants):
    root, alice, bob = tenants.root, tenants.alice, tenants.bob
    status, body = root.get("/api/v1/topics")
    assert {"alice~orders", "bob~orders"} <= {t["name"] for t in body["topics"]}, body
    status, body = root.get("/api/v1/groups?tenant=bob")
    assert status == 200 and [(g["group_id"], g["tenant"]) for g in body["groups"]] == [("bob~g", "bob")], body
    # A tenant's user: its own names, its tenant's only, whatever it asks.
    status, body = alice.get("/api/v1/topics")
    assert status == 200 and [(t["name"], t["tenant"]) for t in body["topics"]] == [("orders", "alice")], body
    status, body = alice.get("/api/v1/topics/orders")
    assert status == 200 and body["name"] == "orders" and body["messages"] == 1, body
    assert alice.get("/api/v1/topics/bob~orders")[0] in (400, 404)
    status, body = alice.get("/api/v1/groups?tenant=bob")
    assert status == 403 and "alice" in body["message"], body
    status, body = alice.get("/api/v1/tenant_view")
    assert body == {"tenancy": True, "scoped": True, "tenant": "alice", "tenants": ["alice"]}, body
    assert {"alice", "bob", "default"} <= set(root.get("/api/v1/tenant_view")[1]["tenants"])
    # Traffic and clients: by the connection's principal.
    ex = alice.get("/api/v1/traffic?limit=1000")[1]["exchanges"]
    assert ex and {e["principal"] for e in ex} == {"User:alice"}, ex
    ex_bob = root.get("/api/v1/traffic?tenant=bob&limit=1000")[1]["exchanges"]
    assert ex_bob and {e["principal"] for e in ex_bob} == {"User:bob"}, ex_bob
    assert alice.get("/api/v1/traffic/%d" % ex_bob[0]["seq"])[0] == 404
    ev = bob.get("/api/v1/traffic/connections")[1]["events"]
    assert ev and {e["principal"] for e in ev} == {"User:bob"}, ev
    seen = bob.get("/api/v1/clients")[1]["clients"]  # librdkafka asks for subscriptions: bob's own are there
    assert {(c["client_id"], c["tenant"]) for c in seen} <= {("bob-app", "bob")}, seen
    assert bob.get("/api/v1/clients/" + tenants.alice_client)[0] == 404
    assert alice.get("/api/v1/clients/" + tenants.alice_client)[0] == 200


def test_the_overview_shows_the_tenants_own_figures(tenants):
    """GET /api/v1/cluster (the Overview) for alice: her topic, partition and group counts, her
    storage, connections and traffic, her Produce and Fetch only; bob's (2 topics, 4 partitions)
    are not counted, and an operator sees the same figures for ?tenant=alice."""
    root, alice = tenants.root, tenants.alice
    status, c = alice.get("/api/v1/cluster")
    assert status == 200, c
    t = c["tenant"]
    assert (t["name"], t["topics"], t["partitions"], t["groups"]) == ("alice", 1, 1, 1), t
    assert t["bytes_in"] > 0 and t["bytes_out"] > 0 and t["requests"] > 0, t
    assert c["data_dir"] is None and c["data_dir_bytes"] == t["storage_bytes"] > 0, c
    assert {r["api"] for r in c["requests"]} <= {"Produce", "Fetch"}, c["requests"]
    assert "bob" not in json.dumps(c)
    status, b = root.get("/api/v1/cluster?tenant=bob")
    assert status == 200 and (b["tenant"]["topics"], b["tenant"]["partitions"]) == (2, 4), b["tenant"]
    assert root.get("/api/v1/cluster?tenant=alice")[1]["tenant"]["topics"] == 1
    whole = root.get("/api/v1/cluster")[1]
    assert "tenant" not in whole and any(r["api"] == "Metadata" for r in whole["requests"]), whole
    assert alice.get("/api/v1/cluster?tenant=bob")[0] == 403


def test_the_pages_filter_by_tenant(broker, tenants):
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium is not installed (deps/apt-test.txt)")
    if not (BROWSER_DIR / "node_modules" / "puppeteer-core").exists() or not shutil.which("node"):
        pytest.skip("puppeteer-core is not installed (scripts/install-test-deps.sh)")
    assert tenants.root.get("/api/v1/traffic")[0] == 200  # still recording
    env = dict(os.environ, CONSOLE_URL=broker.console_url, ROOT="root", ROOT_PASSWORD=USERS["root"],
               ALICE="alice", ALICE_PASSWORD=USERS["alice"], CLIENT_ID="alice-app", CHROMIUM=CHROMIUM,
               SCREENSHOTS=str(REPO / "build" / "console-screenshots"), PUPPETEER_SKIP_DOWNLOAD="1")
    p = subprocess.run(["node", str(BROWSER_DIR / "tenants_page.mjs")], cwd=BROWSER_DIR, env=env,
                       capture_output=True, timeout=180)
    assert p.returncode == 0, p.stderr.decode(errors="replace")[-4000:]
    assert p.stdout.decode().strip().endswith("OK")
