"""Fixtures of cluster mode's tests: the engines (engines.py), started once per
test module, and ketch brokers started with --cluster / --object-store
(BrokerProcess of tests/clients/conftest.py). A failing test's report carries
the brokers' and the engines' logs."""

import importlib.util
import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))

import engines  # noqa: E402


def _load_clients_conftest():
    spec = importlib.util.spec_from_file_location("ketch_clients_conftest", REPO / "tests" / "clients" / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


clients = _load_clients_conftest()


@pytest.fixture(scope="module")
def postgres():
    pg = engines.Postgres()
    yield pg
    pg.close()


@pytest.fixture(scope="module")
def s3():
    server = engines.MotoS3()
    yield server
    server.close()


@pytest.fixture
def aws_env(monkeypatch):
    for k, v in engines.CREDENTIALS.items():
        monkeypatch.setenv(k, v)


@pytest.fixture
def start_broker(request, tmp_path, postgres, s3, aws_env):
    """start_broker(node_id, *extra_args, object_store=URL, console=False) -> a running BrokerProcess in
    cluster mode (object_store: another --object-store than the moto server's, e.g. a proxy in front of
    it; console: the developer console on a free loopback port, named in the data dir's listeners.json)."""
    started = []
    request.node.ketch_brokers = started
    request.node.ketch_engines = [postgres, s3]

    def start(node_id, *extra, object_store=None, console=False):
        run = tmp_path / ("node-%d" % node_id)
        (run / "data").mkdir(parents=True, exist_ok=True)
        shown = ["--console-addr", "127.0.0.1:0"] if console else ["--console=false"]
        args = ["--node-id", str(node_id), "--cluster", postgres.url(), "--object-store", object_store or s3.url(),
                "--schema-registry=false", *shown, *extra]
        b = clients.BrokerProcess(clients._ketch_binary(), run / "data", run, args)
        started.append(b)
        return b.start()

    yield start
    for b in started:
        b.stop()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if rep.failed:
        for b in getattr(item, "ketch_brokers", []):
            rep.sections.append(("ketch log (%s)" % b.log, b.log_text()))
        for e in getattr(item, "ketch_engines", []):
            rep.sections.append(("%s log" % type(e).__name__, e.log_text()))


def pytest_collection_modifyitems(config, items):
    for item in items:  # a hung test must not hang the suite
        if item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(240))
