"""TLS to the object store (docs/cluster.md, "starting brokers"): an
`endpoint=https://...` is spoken to over TLS and the server's certificate is
verified, against `ca_file=` when the URL names one, else the system's trust
store. moto is put behind a TLS-terminating proxy on loopback (faulty_s3.py
with tls=...) whose certificate this test makes with `openssl req`: a
certificate for 127.0.0.1 signed by nobody the system trusts.

- the client (objstore_check: HEAD, conditional PUT, list, GET whole and
  ranged, DELETE, 404) works through it with the certificate as ca_file;
- a broker with that ca_file starts, and what it is sent is produced and
  read back (its objects went through the proxy);
- a broker refuses to start, naming the failed verification, when the
  certificate does not verify: the system's trust store (no ca_file), another
  CA's certificate, a certificate for another host name."""

import subprocess

import pytest

from faulty_s3 import FaultyS3
from test_objstore import check_binary
from test_shared_produce import FLUSH, consume_all, create_topic, produce


def make_certificate(directory, name, san):
    """A self-signed certificate and its key (PEM files) naming `san`."""
    cert, key = directory / ("%s.pem" % name), directory / ("%s.key" % name)
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
                    "/CN=ketch test %s" % name, "-addext", "subjectAltName=%s" % san, "-keyout", str(key),
                    "-out", str(cert)], check=True, capture_output=True, timeout=60)
    return cert, key


@pytest.fixture(scope="module")
def tls_proxy(s3, tmp_path_factory):
    d = tmp_path_factory.mktemp("tls")
    good = make_certificate(d, "loopback", "IP:127.0.0.1")
    other = make_certificate(d, "other-ca", "IP:127.0.0.1")
    wrong_name = make_certificate(d, "wrong-name", "DNS:s3.example.com")
    proxies = {"good": FaultyS3(s3.port, tls=good), "wrong-name": FaultyS3(s3.port, tls=wrong_name)}
    yield proxies, good[0], other[0], wrong_name[0]
    for p in proxies.values():
        p.close()


def test_the_client_speaks_tls_to_the_object_store(tls_proxy, s3, aws_env):
    proxies, ca, _, _ = tls_proxy
    url = proxies["good"].url(s3.bucket, ca_file=ca)
    r = subprocess.run([check_binary(), url, "tls/0001.bin"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr
    assert ("PUT", "/%s/tls/0001.bin" % s3.bucket, None) in proxies["good"].requests


def test_a_broker_produces_and_fetches_over_tls(tls_proxy, start_broker, s3):
    proxies, ca, _, _ = tls_proxy
    proxy = proxies["good"]
    b = start_broker(1, *FLUSH, object_store=proxy.url(s3.bucket, ca_file=ca))
    create_topic(b, "over-tls", 2)
    records = [(b"k%d" % i, b"v%04d" % i) for i in range(200)]
    acked = produce(b, "over-tls", records, 2)
    assert len(acked) == len(records)
    assert consume_all(b, "over-tls", 2, len(records)) == acked
    puts = [path for method, path, _ in proxy.requests if method == "PUT" and "/data/" in path]
    assert puts, "the broker's objects did not go through the TLS endpoint"


def refused_start(postgres, tmp_path, object_store):
    """Starts a broker on `object_store` that is expected to stop at start: (exit code, its output)."""
    from conftest import clients

    run = tmp_path / ("run-%d" % len(list(tmp_path.iterdir())))
    run.mkdir()
    argv = [str(clients._ketch_binary()), "--listen", "127.0.0.1:0", "--data-dir", str(run / "data"),
            "--schema-registry=false", "--console=false", "--node-id", "7", "--cluster", postgres.url(),
            "--object-store", object_store]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    return r.returncode, r.stdout + r.stderr


def test_a_certificate_that_does_not_verify_is_refused_at_start(tls_proxy, postgres, s3, aws_env, tmp_path):
    proxies, ca, other_ca, wrong_name_cert = tls_proxy

    def exit_of(object_store):
        return refused_start(postgres, tmp_path, object_store)

    for url in (proxies["good"].url(s3.bucket),  # the system's trust store does not know the test's certificate
                proxies["good"].url(s3.bucket, ca_file=other_ca),
                proxies["wrong-name"].url(s3.bucket, ca_file=wrong_name_cert)):  # trusted, names another host
        code, out = exit_of(url)
        assert code == 1, out
        assert "HEAD bucket" in out and "TLS handshake" in out and "certificate verify failed" in out, out
    code, out = exit_of(proxies["good"].url(s3.bucket, ca_file="/nonexistent/ca.pem"))
    assert code == 1 and "cannot load ca_file /nonexistent/ca.pem" in out, out
