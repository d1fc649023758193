"""The console's Clients page in a real browser (Debian's chromium driven by
puppeteer-core, tests/console/browser/clients_page.mjs): a confluent-kafka
consumer with enable.metrics.push=true pushes its metrics (KIP-714); the page
lists the client instance, and its page shows key metrics with charts and a
filterable table. Screenshots go to build/console-screenshots/."""

import json
import os
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from conftest import REPO, Driver, HELPER, _missing, eventually
from registry_util import Rest, stop_broker
from test_console_api import start_console_broker

BROWSER_DIR = REPO / "tests" / "console" / "browser"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def test_clients_page_shows_a_pushing_client(tmp_path):
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium is not installed (deps/apt-test.txt)")
    if not (BROWSER_DIR / "node_modules" / "puppeteer-core").exists() or not shutil.which("node"):
        pytest.skip("puppeteer-core is not installed (scripts/install-test-deps.sh)")
    why = _missing(HELPER)
    if why:
        pytest.skip(why)
    b = start_console_broker(tmp_path)
    try:
        api = Rest(b.console_url)
        topic, cid = "clients-page-" + uuid.uuid4().hex[:6], "page-client-" + uuid.uuid4().hex[:6]
        assert api.post("/api/v1/topics", {"name": topic, "partitions": 1})[0] == 201
        helper = Driver(HELPER, b)
        helper.call("group-consume", {"topic": topic, "group": "g-" + cid, "max_records": 1, "timeout_ms": 12000,
                                      "idle_ms": 10000, "commit": "none", "from": "earliest",
                                      "config": {"client.id": cid, "enable.metrics.push": True}})

        def pushed():
            clients = api.get("/api/v1/clients")[1]["clients"]
            assert any(c["client_id"] == cid and c["pushes"] > 0 for c in clients), clients
        eventually(pushed, timeout=20, interval=0.5)
        env = dict(os.environ, CONSOLE_URL=b.console_url, CLIENT_ID=cid, CHROMIUM=CHROMIUM,
                   SCREENSHOTS=str(REPO / "build" / "console-screenshots"), PUPPETEER_SKIP_DOWNLOAD="1")
        p = subprocess.run(["node", str(BROWSER_DIR / "clients_page.mjs")], cwd=BROWSER_DIR, env=env,
                           capture_output=True, timeout=120)
        assert p.returncode == 0, p.stderr.decode(errors="replace")[-4000:]
        assert p.stdout.decode().strip().endswith("OK")
    finally:
        stop_broker(b)
