"""Fixtures for behaviour tests: a fresh ketch process per test.

- broker: the client matrix's BrokerProcess (tests/clients/conftest.py: start,
  ready file, stop(sig), restart, log), loaded under another module name so the
  two conftest files do not collide. KETCH_BIN selects the binary (default
  build/ketch); ``@pytest.mark.ketch_args(...)`` adds command-line flags.
  A failing test's report carries the broker's log.
"""

import importlib.util
import signal
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _load_clients_conftest():
    spec = importlib.util.spec_from_file_location("ketch_clients_conftest", REPO / "tests" / "clients" / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_clients = _load_clients_conftest()


@pytest.fixture
def broker(request, tmp_path):
    marker = request.node.get_closest_marker("ketch_args")
    (tmp_path / "data").mkdir()
    b = _clients.BrokerProcess(_clients._ketch_binary(), tmp_path / "data", tmp_path, list(marker.args) if marker else [])
    request.node.ketch_brokers = [b]
    b.start()
    yield b
    code = b.stop()
    if code not in (None, 0, -signal.SIGKILL):
        pytest.fail("ketch exited with %s on SIGTERM at teardown" % code)


def pytest_configure(config):
    config.addinivalue_line("markers", "ketch_args(*args): extra command-line flags for the ketch under test")


def pytest_collection_modifyitems(config, items):
    for item in items:  # a hung test must not hang the suite
        if item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(600))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if rep.failed:
        for b in getattr(item, "ketch_brokers", []):
            rep.sections.append(("ketch log (%s)" % b.log, b.log_text()))
