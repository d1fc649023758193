"""Helpers for the schema registry tests: a ketch with its registry on a free
port (shared by the tests of one file), and a small HTTP client for the REST API."""

import base64
import json
import signal
import urllib.error
import urllib.request
from pathlib import Path

import pytest

import cluster_matrix
from conftest import BrokerProcess, _ketch_binary

CT = "application/vnd.schemaregistry.v1+json"


def start_broker(tmp_dir, *extra):
    data = Path(tmp_dir) / "data"
    data.mkdir(parents=True, exist_ok=True)
    b = BrokerProcess(_ketch_binary(), data, tmp_dir, ["--schema-registry-addr", "127.0.0.1:0", *extra])
    b.start()
    read_registry_url(b)
    return b


def start_registry_broker(request, tmp_dir, *extra):
    """A module's broker with its registry: start_broker's single ketch, or with
    KETCH_TEST_CLUSTER the matrix's cluster (registry_cluster)."""
    return registry_cluster(request, *extra) or start_broker(tmp_dir, *extra)


def registry_cluster(request, *extra):
    """With KETCH_TEST_CLUSTER the matrix's cluster (cluster_matrix.module_broker), each broker
    with its registry and console on a free port, else None. registry_url is the last
    broker's and registry_urls every broker's (Rest takes the list and asks them in turn:
    what one broker wrote, the next one reads); console_url is the first broker's, so the
    console decodes ids another broker's registry gave."""
    cluster = cluster_matrix.module_broker(request, ["--schema-registry-addr", "127.0.0.1:0", "--console-addr",
                                                     "127.0.0.1:0", *extra])
    if cluster is None:
        return None
    cluster.registry_urls = cluster_matrix.listener_urls(cluster, "schema_registry")
    cluster.registry_url = cluster.registry_urls[-1]
    cluster.console_urls = cluster_matrix.listener_urls(cluster, "console")
    cluster.console_url = cluster.console_urls[0]
    return cluster


def read_registry_url(b):
    """The registry's URL from <data-dir>/listeners.json (written before the ready file)."""
    listeners = json.loads((b.data_dir / "listeners.json").read_text())
    assert "schema_registry" in listeners, listeners
    b.registry_url = listeners["schema_registry"]
    return b.registry_url


def stop_broker(b):
    if isinstance(b, cluster_matrix.ClusterBroker):
        return  # the session's cluster pool stops it
    code = b.stop()
    if code not in (None, 0, -signal.SIGKILL):
        pytest.fail("ketch exited with %s on SIGTERM" % code)


class Rest:
    """call(method, path, body) -> (status, parsed JSON or text)."""

    def __init__(self, url, user=None, password=None, context=None):
        # A list of URLs (a cluster's registries): each call asks the next one.
        self.urls = list(url) if isinstance(url, (list, tuple)) else [url]
        self.url = self.urls[0]
        self.calls = 0
        self.auth = None
        if user is not None:
            self.auth = "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()
        self.context = context

    def call(self, method, path, body=None, raw=None, content_type=CT):
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        url = self.urls[self.calls % len(self.urls)]
        self.calls += 1
        req = urllib.request.Request(url + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", content_type)
        if self.auth:
            req.add_header("Authorization", self.auth)
        try:
            with urllib.request.urlopen(req, timeout=30, context=self.context) as r:
                status, text = r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            status, text = e.code, e.read().decode()
        try:
            return status, json.loads(text)
        except ValueError:
            return status, text

    def get(self, path):
        return self.call("GET", path)

    def post(self, path, body=None, **kw):
        return self.call("POST", path, body, **kw)

    def put(self, path, body):
        return self.call("PUT", path, body)

    def delete(self, path):
        return self.call("DELETE", path)
