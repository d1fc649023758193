"""The console in a real browser: Debian's chromium driven by puppeteer-core
(tests/console/browser/console_test.mjs) against a ketch with a SCRAM user,
while real clients produce (the Java client) and consume (confluent-kafka). The page: creates a
topic, shows a client's records (key, headers, JSON value), tails a topic and
shows a new record within 1 s, shows a group's live member (client id, host,
assignment) and its lag and, once the member has left, resets its offsets,
finds a client's Produce in Traffic decoded; and after a SCRAM login over
SASL the password is nowhere in the DOM nor in the API's JSON. Screenshots
of every page go to build/console-screenshots/."""

import base64
import json
import os
import shutil
import subprocess
import types
import uuid
from pathlib import Path

import pytest

from conftest import REPO, BrokerProcess, Driver, HELPER, _ketch_binary, _missing, eventually, wait_for
from registry_util import Rest, stop_broker

BROWSER_DIR = REPO / "tests" / "console" / "browser"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
PASSWORD = "s3cret-" + uuid.uuid4().hex[:12]


def b64(s):
    return base64.b64encode(s.encode()).decode()


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium is not installed (deps/apt-test.txt)")
    if not (BROWSER_DIR / "node_modules" / "puppeteer-core").exists() or not shutil.which("node"):
        pytest.skip("puppeteer-core is not installed (scripts/install-test-deps.sh)")
    why = _missing(HELPER) or _missing("java")
    if why:
        pytest.skip(why)
    run = tmp_path_factory.mktemp("console-browser")
    (run / "ketch.toml").write_text('[[users]]\nname = "alice"\npassword = "%s"\n' % PASSWORD)
    (run / "data").mkdir()
    b = BrokerProcess(_ketch_binary(), run / "data", run, [
        "--config", str(run / "ketch.toml"), "--schema-registry=false",
        "--listener", "SASL_PLAINTEXT=SASL_PLAINTEXT://127.0.0.1:0"])
    b.start()
    listeners = json.loads((b.data_dir / "listeners.json").read_text())
    b.console_url = listeners["console"]
    sasl = types.SimpleNamespace(bootstrap=listeners["listeners"]["SASL_PLAINTEXT"]["address"])
    yield b, Driver(HELPER, b), Driver(HELPER, sasl), Driver("java", b)
    stop_broker(b)


def live_member(broker, topic, group, client_id):
    """A confluent-kafka consumer in `group`, returned once it has its assignment;
    it commits nothing (librdkafka keeps it in the group from its own thread)."""
    from confluent_kafka import Consumer
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": group, "client.id": client_id,
                  "enable.auto.commit": False, "auto.offset.reset": "earliest"})
    c.subscribe([topic])

    def assigned():
        c.poll(0.2)
        assert c.assignment(), "no assignment yet"
    eventually(assigned, timeout=30)
    return c


def test_console_in_chromium(setup):
    broker, helper, sasl_helper, java = setup
    api = Rest(broker.console_url, "alice", PASSWORD)
    topic, new_topic, group = ("browser-" + uuid.uuid4().hex[:8] for _ in range(3))
    client_id = "traffic-client-" + uuid.uuid4().hex[:6]
    member_id = "live-member-" + uuid.uuid4().hex[:6]
    scram = {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "SCRAM-SHA-256",
             "sasl.username": "alice", "sasl.password": PASSWORD}

    records = [{"key": b64("order-%d" % i), "value": b64(json.dumps({"order": i, "amount": 42})),
                "headers": [["trace-id", b64("t-%d" % i)]], "partition": 0} for i in range(1, 11)]
    out = java("produce", {"topic": topic, "acks": "all", "records": records})
    assert all(r["error"] is None for r in out["records"])
    consumed = helper("group-consume", {"topic": topic, "group": group, "max_records": 4, "max_poll_records": 4,
                                        "timeout_ms": 30000, "idle_ms": 3000, "commit": "sync", "from": "earliest"})
    committed = consumed["committed"]["%s:0" % topic]
    wait_for(lambda: api.get("/api/v1/groups/" + group)[1].get("state") == "Empty")
    # The lag the page must show: what the group has not consumed (the 10
    # records, and the one produced during the tail, before the group page).
    lag = 11 - committed

    env = dict(os.environ, CONSOLE_URL=broker.console_url, CONSOLE_USER="alice", CONSOLE_PASSWORD=PASSWORD,
               TOPIC=topic, NEW_TOPIC=new_topic, GROUP=group, GROUP_LAG=str(lag), GROUP_END="11",
               CLIENT_ID=client_id, MEMBER_CLIENT_ID=member_id, SCREENSHOTS=str(REPO / "build" / "console-screenshots"), CHROMIUM=CHROMIUM,
               PUPPETEER_SKIP_DOWNLOAD="1")
    proc = subprocess.Popen(["node", str(BROWSER_DIR / "console_test.mjs")], cwd=BROWSER_DIR, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    done, member = None, None
    try:
        for line in proc.stdout:
            line = line.strip()
            if line == "READY tail":
                r = helper("produce", {"topic": topic, "acks": "all", "records": [
                    {"key": b64("tail"), "value": b64("tailed-record"), "headers": [], "partition": 0}]})
                assert r["records"][0]["error"] is None
            elif line == "READY member":
                member = live_member(broker, topic, group, member_id)
            elif line == "READY leave":
                member.close()
                member = None
            elif line == "READY traffic":
                r = sasl_helper("produce", {"topic": topic, "acks": "all", "config": dict(scram, **{"client.id": client_id}),
                                            "records": [{"key": None, "value": b64("traffic-value"), "headers": [],
                                                         "partition": 0}]})
                assert r["records"][0]["error"] is None
            elif line.startswith("DONE"):
                done = json.loads(line[5:])
                continue
            else:
                continue
            proc.stdin.write("GO\n")
            proc.stdin.flush()
        proc.wait(timeout=120)
    finally:
        if member is not None:
            member.close()
        if proc.poll() is None:
            proc.kill()
    err = proc.stderr.read()
    assert proc.returncode == 0 and done is not None, err
    assert done["tail_ms"] <= 1000

    # The group reads from where the page reset it (earliest): the 11 records.
    again = helper("group-consume", {"topic": topic, "group": group, "max_records": 11, "timeout_ms": 30000,
                                     "idle_ms": 3000, "commit": "sync", "from": "latest"})
    assert [r["offset"] for r in again["records"]][:1] == [0]

    # After the SCRAM login, no API answer carries the password either.
    status, listing = api.get("/api/v1/traffic?limit=2000")
    assert status == 200
    seen = json.dumps(listing)
    assert any(x["api"] == "SaslAuthenticate" for x in listing["exchanges"])
    for x in listing["exchanges"]:
        seen += json.dumps(api.get("/api/v1/traffic/%d" % x["seq"])[1])
    seen += json.dumps(api.get("/api/v1/traffic/connections")[1]) + json.dumps(api.get("/api/v1/users")[1])
    assert PASSWORD not in seen
    assert b64(PASSWORD) not in seen
