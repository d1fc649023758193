"""Mutual TLS to the object store (docs/cluster.md, "Starting brokers"): an
https endpoint that requires a client certificate, reached with
`cert_file=` and `key_file=` in --object-store's URL. moto is put behind a
TLS-terminating proxy on loopback (faulty_s3.py with client_ca=: Python's
ssl with CERT_REQUIRED, the certificate verified against a test CA) whose
certificates this test makes with openssl; none is committed.

- the client (objstore_check: HEAD, conditional PUT, list, GET, DELETE)
  works through it with a certificate the CA signed;
- a broker with that certificate starts, and what it is sent is produced
  and read back through the proxy, which saw the broker's certificate;
- a broker without a certificate, or with one the CA did not sign, refuses
  to start (exit code 1, not a crash) naming the HEAD it could not make and
  the TLS alert the endpoint sent; a certificate file that does not exist,
  or a key that is not the certificate's, is named the same way."""

import subprocess

import pytest

from faulty_s3 import FaultyS3
from test_objstore import check_binary
from test_objstore_tls import make_certificate, refused_start
from test_shared_produce import FLUSH, consume_all, create_topic, produce


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def client_certificate(d, ca, name):
    """A client certificate for CN=`name` signed by `ca` (a (cert, key) pair): its (cert, key) files."""
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=%s" % name, "-keyout", "%s.key" % name,
            "-out", "%s.csr" % name, cwd=d)
    (d / ("%s.ext" % name)).write_text("extendedKeyUsage=clientAuth\n")
    openssl("x509", "-req", "-in", "%s.csr" % name, "-CA", str(ca[0]), "-CAkey", str(ca[1]), "-CAcreateserial",
            "-days", "2", "-extfile", "%s.ext" % name, "-out", "%s.pem" % name, cwd=d)
    return d / ("%s.pem" % name), d / ("%s.key" % name)


@pytest.fixture(scope="module")
def mtls(s3, tmp_path_factory):
    d = tmp_path_factory.mktemp("mtls")
    server = make_certificate(d, "loopback", "IP:127.0.0.1")
    client_ca = make_certificate(d, "client-ca", "DNS:client-ca.test")
    stranger_ca = make_certificate(d, "stranger-ca", "DNS:stranger-ca.test")
    proxy = FaultyS3(s3.port, tls=server, client_ca=client_ca[0])
    yield {"proxy": proxy, "ca": server[0], "broker": client_certificate(d, client_ca, "ketch-broker"),
           "stranger": client_certificate(d, stranger_ca, "stranger"), "dir": d}
    proxy.close()


def url_of(m, s3, cert=None, key=None):
    return m["proxy"].url(s3.bucket, ca_file=m["ca"], cert_file=cert, key_file=key)


def test_the_client_presents_its_certificate(mtls, s3, aws_env):
    r = subprocess.run([check_binary(), url_of(mtls, s3, *mtls["broker"]), "mtls/0001.bin"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr
    assert ("PUT", "/%s/mtls/0001.bin" % s3.bucket, None) in mtls["proxy"].requests
    assert mtls["proxy"].client_names == {"ketch-broker"}


def test_a_broker_produces_and_fetches_over_mutual_tls(mtls, start_broker, s3):
    b = start_broker(1, *FLUSH, object_store=url_of(mtls, s3, *mtls["broker"]))
    create_topic(b, "over-mtls", 2)
    records = [(b"k%d" % i, b"v%04d" % i) for i in range(200)]
    acked = produce(b, "over-mtls", records, 2)
    assert len(acked) == len(records)
    assert consume_all(b, "over-mtls", 2, len(records)) == acked
    puts = [path for method, path, _ in mtls["proxy"].requests if method == "PUT" and "/data/" in path]
    assert puts, "the broker's objects did not go through the mutual TLS endpoint"
    assert mtls["proxy"].client_names == {"ketch-broker"}


def test_a_broker_without_an_accepted_certificate_is_refused_at_start(mtls, postgres, s3, aws_env, tmp_path):
    def exit_of(object_store):
        return refused_start(postgres, tmp_path, object_store)

    # TLS 1.3: the endpoint's alert comes after the client's handshake, read in place of the answer (OpenSSL's
    # names: "certificate required" without one, "unknown ca" for one its CA did not sign).
    for cert, alert in ((None, "alert certificate required"), (mtls["stranger"], "alert unknown ca")):
        code, out = exit_of(url_of(mtls, s3, *(cert or (None, None))))
        assert code == 1, out  # an exit, not a signal
        assert "HEAD bucket: no answer TlsError" in out and alert in out, out
    assert "stranger" not in mtls["proxy"].client_names
    missing = mtls["dir"] / "missing.pem"
    code, out = exit_of(url_of(mtls, s3, missing, mtls["broker"][1]))
    assert code == 1 and "cannot load cert_file %s" % missing in out, out
    code, out = exit_of(url_of(mtls, s3, mtls["broker"][0], mtls["stranger"][1]))
    assert code == 1 and "cannot load key_file %s" % mtls["stranger"][1] in out, out
