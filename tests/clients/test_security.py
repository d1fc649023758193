"""Real clients over TLS and SASL: SASL_SSL + SCRAM-SHA-512, SASL_PLAINTEXT + PLAIN,
and SSL with a client certificate, each producing and consuming a few records;
wrong passwords and unknown users refused.

Certificates are made at test time with the openssl CLI (a CA, a server certificate
for localhost/127.0.0.1, a client certificate); no private key is committed.
Behaviour references: Kafka's SaslServerAuthenticator, ScramSaslServer,
PlainSaslServer, SslFactory and DefaultKafkaPrincipalBuilder (clients/src/main/java).
"""

import base64
import json
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from conftest import (Driver, DriverError, _ketch_binary, _missing, _wanted_clients, BrokerProcess, listener_address,
                      own_broker, release_own_broker)

# Under KETCH_TEST_CLUSTER=N secure_broker is a cluster of N (tests/clients/cluster_matrix.py).
OWN_BROKERS_JOIN_THE_MATRIX = True

USERS = {"alice": "alice-secret", "bob": "bob-secret"}
# The clients of issue 7's acceptance list, and franz-go.
CLIENTS = [c for c in ("java", "confluent", "kafka-python", "kafkajs", "kcat", "franz-go")
           if c in _wanted_clients()[0]]


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    d = tmp_path_factory.mktemp("certs")
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
            "-subj", "/O=ketch-test/CN=test-ca", "-keyout", "ca.key", "-out", "ca.crt",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=d)
    for name, subj, ext in (
            ("server", "/O=ketch-test/CN=localhost", "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth"),
            ("client", "/O=ketch-test/OU=clients/CN=client-one", "extendedKeyUsage=clientAuth")):
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", subj,
                "-keyout", name + ".key.sec1", "-out", name + ".csr", cwd=d)
        openssl("pkcs8", "-topk8", "-nocrypt", "-in", name + ".key.sec1", "-out", name + ".key", cwd=d)
        (d / (name + ".ext")).write_text(ext + "\n")
        openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                "-days", "2", "-extfile", name + ".ext", "-out", name + ".crt", cwd=d)
    # Java's PEM keystore: the private key and its certificate in one file.
    (d / "client.pem").write_text((d / "client.key").read_text() + (d / "client.crt").read_text())
    return d


@pytest.fixture(scope="module")
def secure_broker(request, tmp_path_factory, certs):
    run = tmp_path_factory.mktemp("secure-broker")
    toml = run / "ketch.toml"
    toml.write_text("".join('[[users]]\nname = "%s"\npassword = "%s"\n' % kv for kv in USERS.items()))
    b = own_broker(request, run, [
        "--config", str(toml),
        "--listener", "SASL_PLAINTEXT=SASL_PLAINTEXT://127.0.0.1:0",
        "--listener", "SASL_SSL=SASL_SSL://127.0.0.1:0",
        "--listener", "SSL=SSL://127.0.0.1:0",
        "--tls-cert", str(certs / "server.crt"), "--tls-key", str(certs / "server.key"),
        "--tls-client-ca", str(certs / "ca.crt")])
    b.addresses = {name: listener_address(b, name) for name in b.listeners()[0]["listeners"]}
    yield b
    release_own_broker(b)


def security_config(client, protocol, certs, mechanism=None, user=None, password=None):
    """The client's own property names for a security setting."""
    ca, cert, key = str(certs / "ca.crt"), str(certs / "client.crt"), str(certs / "client.key")
    tls = protocol in ("SSL", "SASL_SSL")
    mtls = protocol == "SSL"
    if client == "java":
        c = {"security.protocol": protocol}
        if tls:
            c.update({"ssl.truststore.type": "PEM", "ssl.truststore.location": ca})
        if mtls:
            c.update({"ssl.keystore.type": "PEM", "ssl.keystore.location": str(certs / "client.pem")})
        if mechanism:
            module = "plain.PlainLoginModule" if mechanism == "PLAIN" else "scram.ScramLoginModule"
            c.update({"sasl.mechanism": mechanism, "sasl.jaas.config":
                      'org.apache.kafka.common.security.%s required username="%s" password="%s";'
                      % (module, user, password)})
        return c
    if client == "kafka-python":
        c = {"security.protocol": protocol}
        if tls:
            c["ssl.cafile"] = ca
        if mtls:
            c.update({"ssl.certfile": cert, "ssl.keyfile": key})
        if mechanism:
            c.update({"sasl.mechanism": mechanism, "sasl.plain.username": user, "sasl.plain.password": password})
        return c
    # librdkafka (confluent, kcat) and the kafkajs and franz-go drivers' mapping of the same names
    c = {"security.protocol": protocol}
    if tls:
        c["ssl.ca.location"] = ca
    if mtls:
        c.update({"ssl.certificate.location": cert, "ssl.key.location": key})
    if mechanism:
        c.update({"sasl.mechanisms" if client not in ("kafkajs", "franz-go") else "sasl.mechanism": mechanism,
                  "sasl.username": user, "sasl.password": password})
    return c


MODES = {
    "sasl_ssl_scram512": ("SASL_SSL", "SCRAM-SHA-512", "alice"),
    "sasl_plaintext_plain": ("SASL_PLAINTEXT", "PLAIN", "bob"),
    "ssl_client_cert": ("SSL", None, None),
}


def driver_for(name, address):
    why = _missing(name)
    if why:
        pytest.skip(why)
    return Driver(name, SimpleNamespace(bootstrap=address))


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("client", CLIENTS)
def test_produce_and_consume_over_a_secure_listener(secure_broker, certs, client, mode):
    protocol, mechanism, user = MODES[mode]
    if client == "kcat" and mechanism and mechanism.startswith("SCRAM"):
        # Debian 12's librdkafka 2.0.2 (kcat) sends the client nonce twice in its final
        # SCRAM message; Apache Kafka 4.3.1 refuses it exactly as ketch does (checked
        # against the reference broker). confluent-kafka's newer librdkafka covers SCRAM.
        pytest.skip("kcat's librdkafka 2.0.2 SCRAM client is broken (fails against Kafka 4.3.1 too)")
    drv = driver_for(client, secure_broker.addresses[protocol])
    config = security_config(client, protocol, certs, mechanism, user, USERS.get(user))
    topic = "sec-%s-%s" % (client, mode)
    values = [("%s %d" % (mode, i)).encode() for i in range(3)]
    if client == "franz-go":
        # franz-go does not auto-create topics; its admin call goes over the same listener.
        out = drv("create-topics", {"topics": [{"name": topic, "partitions": 1, "replication_factor": 1}],
                                    "config": config})
        assert [r["error"] for r in out["results"]] == [None], out
    out = drv("produce", {"topic": topic, "acks": "all", "config": config,
                          "records": [{"key": None, "value": base64.b64encode(v).decode(), "partition": 0}
                                      for v in values]})
    assert [r["error"] for r in out["records"]] == [None] * 3, out
    got = drv("consume", {"topic": topic, "partitions": [0], "from": "beginning", "max_records": 3,
                          "timeout_ms": 20000, "config": config})
    assert [base64.b64decode(r["value"]) for r in got["records"]] == values


@pytest.mark.parametrize("mechanism,user,password", [("SCRAM-SHA-512", "alice", "not-her-password"),
                                                    ("PLAIN", "mallory", "anything")])
def test_wrong_password_and_unknown_user_are_refused(secure_broker, certs, mechanism, user, password):
    drv = driver_for("java", secure_broker.addresses["SASL_PLAINTEXT"])
    config = security_config("java", "SASL_PLAINTEXT", certs, mechanism, user, password)
    config["request.timeout.ms"] = "5000"
    config["default.api.timeout.ms"] = "5000"
    try:
        out = drv.call("list-topics", {"config": config}, timeout=60)
    except DriverError as e:
        out = {"error": str(e)}
    text = json.dumps(out)
    assert "SaslAuthenticationException" in text or "SASL_AUTHENTICATION_FAILED" in text, text


def test_listener_configs_name_every_listener(secure_broker):
    """DescribeConfigs of the broker shows each listener in `listeners`,
    `advertised.listeners` and `listener.security.protocol.map`, as a Kafka broker
    reports its server.properties (KafkaConfig / SocketServerConfigs)."""
    drv = driver_for("confluent", secure_broker.bootstrap)
    node = min(b["id"] for b in drv("describe-cluster")["brokers"])  # a cluster's nodes are 1..N
    keys = ["listeners", "advertised.listeners", "listener.security.protocol.map"]
    got = drv("describe-configs", {"resource": "broker", "name": str(node), "keys": keys})
    assert got["error"] is None, got
    configs = {k: got["configs"][k]["value"] for k in keys}
    names = ["PLAINTEXT", "SASL_PLAINTEXT", "SASL_SSL", "SSL"]
    listeners = secure_broker.listeners()[0]["listeners"]  # the first broker's (node 1, or the one)
    expected = ",".join("%s://%s" % (n, listeners[n]["address"]) for n in names)
    assert configs["listeners"] == expected
    assert configs["advertised.listeners"] == expected
    assert configs["listener.security.protocol.map"] == ",".join("%s:%s" % (n, n) for n in names)
    assert all(got["configs"][k]["source"] == "STATIC_BROKER_CONFIG" for k in keys), got


SUBJECT = "CN=client-one,OU=clients,O=ketch-test"  # the client certificate's, RFC 2253


@pytest.fixture(scope="module")
def tenancy_tls_broker(tmp_path_factory, certs):
    run = tmp_path_factory.mktemp("tenancy-tls-broker")
    toml = run / "ketch.toml"
    toml.write_text("".join('[[users]]\nname = "%s"\npassword = "%s"\n' % kv
                            for kv in dict(USERS, root="root-secret").items()))
    (run / "data").mkdir()
    b = BrokerProcess(_ketch_binary(), run / "data", run, [
        "--config", str(toml), "--tenancy", "--super-users", "User:root", "--schema-registry=false",
        "--listener", "SASL_PLAINTEXT=SASL_PLAINTEXT://127.0.0.1:0", "--listener", "SSL=SSL://127.0.0.1:0",
        "--tls-cert", str(certs / "server.crt"), "--tls-key", str(certs / "server.key"),
        "--tls-client-ca", str(certs / "ca.crt")])
    b.start()
    listeners = json.loads((run / "data" / "listeners.json").read_text())
    b.addresses = {name: v["address"] for name, v in listeners["listeners"].items()}
    b.console_url = listeners["console"]
    yield b
    b.stop()


def test_a_client_certificate_bound_to_a_tenant_is_that_tenant(tenancy_tls_broker, certs):
    """An mTLS principal (User: + the certificate's subject) bound to tenant alice by the admin
    API (`ketch tenant bind-user alice SUBJECT`, docs/tenancy.md) sees alice's topics under
    alice's names and writes into them; bob's topic of the same name is not what it reads."""
    b = tenancy_tls_broker
    sasl_drv = driver_for("confluent", b.addresses["SASL_PLAINTEXT"])
    tls_drv = driver_for("confluent", b.addresses["SSL"])

    def as_user(user):
        return security_config("confluent", "SASL_PLAINTEXT", certs, "PLAIN", user, USERS[user])
    for user in ("alice", "bob"):
        out = sasl_drv("create-topics", {"topics": [{"name": "cert-orders", "partitions": 1, "replication_factor": 1}],
                                         "config": as_user(user)})
        assert out["results"][0]["error"] is None, out
        out = sasl_drv("produce", {"topic": "cert-orders", "acks": "all", "config": as_user(user), "records": [
            {"key": None, "value": base64.b64encode(user.encode()).decode(), "partition": 0}]})
        assert out["records"][0]["error"] is None, out
    for args in (("create", "alice"), ("bind-user", "alice", SUBJECT)):  # alice was an implicit tenant
        p = subprocess.run([str(_ketch_binary()), "tenant", *args, "--console-url", b.console_url, "--user", "root",
                            "--password", "root-secret"], capture_output=True, timeout=60)
        assert p.returncode == 0, p.stderr
    cert = security_config("confluent", "SSL", certs)
    topics = tls_drv("list-topics", {"config": cert})["topics"]
    assert "cert-orders" in topics and not [t for t in topics if "~" in t], topics
    out = tls_drv("produce", {"topic": "cert-orders", "acks": "all", "config": cert, "records": [
        {"key": None, "value": base64.b64encode(b"from-cert").decode(), "partition": 0}]})
    assert out["records"][0]["error"] is None, out
    got = sasl_drv("consume", {"topic": "cert-orders", "partitions": [0], "from": "beginning", "max_records": 2,
                               "timeout_ms": 10000, "config": as_user("alice")})
    assert [base64.b64decode(r["value"]) for r in got["records"]] == [b"alice", b"from-cert"], got
    got = sasl_drv("consume", {"topic": "cert-orders", "partitions": [0], "from": "beginning", "max_records": 2,
                               "timeout_ms": 3000, "config": as_user("bob")})
    assert [base64.b64decode(r["value"]) for r in got["records"]] == [b"bob"], got
