"""The registry's REST API answer by answer, and hostile input. Each expected
answer is Confluent Schema Registry's documented behaviour (docs.confluent.io
"Schema Registry API Reference"; error codes and messages from
core/src/main/java/io/confluent/kafka/schemaregistry/rest/exceptions/Errors.java
and the Rest*Exception classes; register/delete rules from
core/.../storage/KafkaSchemaRegistry.java). One ketch serves the whole file."""

import json
import socket
import urllib.parse
import uuid

import pytest

from registry_util import Rest, start_broker, start_registry_broker, stop_broker

REC = '{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}'
REC2 = '{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"string","default":""}]}'


MATRIX_BROKER = True  # KETCH_TEST_CLUSTER: the fixture's broker is the matrix's cluster


@pytest.fixture(scope="module")
def broker(request, tmp_path_factory):
    b = start_registry_broker(request, tmp_path_factory.mktemp("registry-api"))
    yield b
    stop_broker(b)


@pytest.fixture
def rest(broker):
    # A cluster's registries in turn: each call asks the next broker.
    return Rest(getattr(broker, "registry_urls", None) or broker.registry_url)


@pytest.fixture
def subject():
    return "api-" + uuid.uuid4().hex[:10]


def q(s):
    return urllib.parse.quote(s, safe="")


def test_register_lookup_and_reads(rest, subject):
    assert rest.get("/schemas/types") == (200, ["JSON", "PROTOBUF", "AVRO"])
    status, body = rest.post("/subjects/%s/versions" % subject, {"schema": REC})
    assert status == 200 and set(body) == {"id"}
    sid = body["id"]
    # Idempotent: the same schema (spelled differently) answers the same id and adds no version.
    assert rest.post("/subjects/%s/versions" % subject, {"schema": json.dumps(json.loads(REC), indent=2)}) == (200, {"id": sid})
    assert rest.get("/subjects/%s/versions" % subject) == (200, [1])
    status, v = rest.get("/subjects/%s/versions/latest" % subject)
    assert status == 200
    assert list(v) == ["subject", "version", "id", "schema"]  # Confluent's field order; no schemaType for AVRO
    assert (v["subject"], v["version"], v["id"]) == (subject, 1, sid)
    assert rest.get("/subjects/%s/versions/1/schema" % subject) == (200, json.loads(REC))
    assert rest.get("/schemas/ids/%d" % sid) == (200, {"schema": REC})
    assert rest.get("/schemas/ids/%d/subjects" % sid)[1] == [subject]
    assert rest.get("/schemas/ids/%d/versions" % sid)[1] == [{"subject": subject, "version": 1}]
    status, found = rest.post("/subjects/%s" % subject, {"schema": REC})
    assert status == 200 and found["version"] == 1 and found["id"] == sid
    assert subject in rest.get("/subjects")[1]
    assert rest.get("/subjects?subjectPrefix=" + subject)[1] == [subject]


def test_confluent_error_codes(rest, subject):
    assert rest.get("/subjects/%s/versions" % subject)[1]["error_code"] == 40401
    rest.post("/subjects/%s/versions" % subject, {"schema": REC})
    status, body = rest.get("/subjects/%s/versions/9" % subject)
    assert (status, body) == (404, {"error_code": 40402, "message": "Version 9 not found."})
    assert rest.get("/schemas/ids/999999")[1] == {"error_code": 40403, "message": "Schema 999999 not found"}
    assert rest.post("/subjects/%s" % subject, {"schema": REC2})[1]["error_code"] == 40403
    for bad in ("0", "-2", "x", "2147483648"):
        status, body = rest.get("/subjects/%s/versions/%s" % (subject, bad))
        assert (status, body["error_code"]) == (422, 42202), bad
        assert "is not a valid version id" in body["message"]
    status, body = rest.post("/subjects/%s/versions" % subject, {"schema": "{not avro"})
    assert (status, body["error_code"]) == (422, 42201)
    status, body = rest.post("/subjects/%s/versions" % subject, {"schema": REC, "schemaType": "XML"})
    assert (status, body["error_code"]) == (422, 42201)
    assert rest.put("/config/%s" % subject, {"compatibility": "SIDEWAYS"})[1]["error_code"] == 42203
    assert rest.put("/mode/%s" % subject, {"mode": "WRITEONLY"})[1]["error_code"] == 42204
    assert rest.get("/config/%s" % subject)[1]["error_code"] == 40408
    assert rest.get("/mode/%s" % subject)[1]["error_code"] == 40409
    assert rest.get("/config/%s?defaultToGlobal=true" % subject) == (200, {"compatibilityLevel": "BACKWARD"})
    status, _ = rest.call("POST", "/subjects/%s/versions" % subject, raw=b'{"schema":"x"}', content_type="text/plain")
    assert status == 415


def test_incompatible_is_409_and_verbose_compatibility(rest, subject):
    rest.post("/subjects/%s/versions" % subject, {"schema": REC})
    breaking = REC.replace('"int"', '"string"')
    status, body = rest.post("/subjects/%s/versions" % subject, {"schema": breaking})
    assert (status, body["error_code"]) == (409, 409)
    assert body["message"].startswith('Schema being registered is incompatible with an earlier schema for subject "%s"' % subject)
    status, body = rest.post("/compatibility/subjects/%s/versions/latest?verbose=true" % subject, {"schema": breaking})
    assert status == 200 and body["is_compatible"] is False
    assert any("TYPE_MISMATCH" in m for m in body["messages"])
    assert "{oldSchemaVersion: 1}" in body["messages"]
    assert rest.post("/compatibility/subjects/%s/versions/1" % subject, {"schema": REC2}) == (200, {"is_compatible": True})
    # CompatibilityResource.testCompatibilityBySubjectName: a named version that is not there
    # is 40402 even for an unknown subject; "latest" of nothing is compatible; an invalid
    # schema with verbose is an incompatible answer carrying the parse error, without 42201.
    assert rest.post("/compatibility/subjects/%s-none/versions/1" % subject, {"schema": REC2})[1]["error_code"] == 40402
    assert rest.post("/compatibility/subjects/%s-none/versions/latest" % subject, {"schema": REC2}) == (200, {"is_compatible": True})
    status, body = rest.post("/compatibility/subjects/%s/versions/latest?verbose=true" % subject, {"schema": "{not avro"})
    assert status == 200 and body["is_compatible"] is False and len(body["messages"]) == 1
    assert rest.post("/compatibility/subjects/%s/versions/latest" % subject, {"schema": "{not avro"})[1]["error_code"] == 42201
    assert rest.put("/config/%s" % subject, {"compatibility": "NONE"}) == (200, {"compatibility": "NONE"})
    assert rest.post("/subjects/%s/versions" % subject, {"schema": breaking})[0] == 200
    assert rest.delete("/config/%s" % subject) == (200, {"compatibilityLevel": "NONE"})


def test_soft_then_permanent_deletes(rest, subject):
    rest.post("/subjects/%s/versions" % subject, {"schema": REC})
    rest.post("/subjects/%s/versions" % subject, {"schema": REC2})
    assert rest.delete("/subjects/%s/versions/1?permanent=true" % subject)[1]["error_code"] == 40407
    assert rest.delete("/subjects/%s/versions/1" % subject) == (200, 1)
    assert rest.delete("/subjects/%s/versions/1" % subject)[1]["error_code"] == 40406
    assert rest.get("/subjects/%s/versions" % subject)[1] == [2]
    assert rest.get("/subjects/%s/versions?deleted=true" % subject)[1] == [1, 2]
    assert rest.delete("/subjects/%s?permanent=true" % subject)[1]["error_code"] == 40405
    assert rest.delete("/subjects/%s" % subject) == (200, [2])
    assert rest.delete("/subjects/%s" % subject)[1]["error_code"] == 40404
    assert rest.get("/subjects/%s/versions" % subject)[1]["error_code"] == 40401
    assert subject in rest.get("/subjects?deleted=true")[1]
    assert rest.delete("/subjects/%s?permanent=true" % subject) == (200, [1, 2])
    assert subject not in rest.get("/subjects?deleted=true")[1]


def test_references_across_subjects_and_formats(rest, subject):
    addr = '{"type":"record","name":"Address","namespace":"k","fields":[{"name":"street","type":"string"}]}'
    rest.post("/subjects/%s-addr/versions" % subject, {"schema": addr})
    user = '{"type":"record","name":"User","namespace":"k","fields":[{"name":"home","type":"Address"}]}'
    refs = [{"name": "k.Address", "subject": subject + "-addr", "version": 1}]
    status, body = rest.post("/subjects/%s-user/versions" % subject, {"schema": user, "references": refs})
    assert status == 200, body
    uid = body["id"]
    assert rest.get("/schemas/ids/%d" % uid)[1]["references"] == refs
    assert rest.get("/subjects/%s-addr/versions/1/referencedby" % subject) == (200, [uid])
    assert rest.delete("/subjects/%s-addr/versions/1" % subject)[1]["error_code"] == 42206
    # JSON Schema: a $ref to another subject's schema by its reference name.
    rest.post("/subjects/%s-jaddr/versions" % subject,
              {"schemaType": "JSON", "schema": '{"type":"object","properties":{"street":{"type":"string"}}}'})
    jref = [{"name": "addr.json", "subject": subject + "-jaddr", "version": 1}]
    status, body = rest.post("/subjects/%s-juser/versions" % subject, {
        "schemaType": "JSON", "references": jref,
        "schema": '{"type":"object","properties":{"home":{"$ref":"addr.json"}}}'})
    assert status == 200, body
    # Protobuf: an import of another subject's .proto.
    rest.post("/subjects/%s-paddr/versions" % subject, {
        "schemaType": "PROTOBUF", "schema": 'syntax = "proto3"; package k; message Address { string street = 1; }'})
    pref = [{"name": "k/address.proto", "subject": subject + "-paddr", "version": 1}]
    status, body = rest.post("/subjects/%s-puser/versions" % subject, {
        "schemaType": "PROTOBUF", "references": pref,
        "schema": 'syntax = "proto3"; package k; import "k/address.proto"; message User { Address home = 1; }'})
    assert status == 200, body
    assert rest.get("/schemas/ids/%d" % body["id"])[1]["schemaType"] == "PROTOBUF"


def test_modes_and_import(rest, subject):
    assert rest.get("/mode") == (200, {"mode": "READWRITE"})
    assert rest.put("/mode/%s" % subject, {"mode": "IMPORT"}) == (200, {"mode": "IMPORT"})
    status, body = rest.post("/subjects/%s/versions" % subject, {"schema": REC, "id": 500000, "version": 4})
    assert (status, body) == (200, {"id": 500000})
    assert rest.get("/subjects/%s/versions" % subject)[1] == [4]
    assert rest.put("/mode/%s" % subject, {"mode": "READONLY"}) == (200, {"mode": "READONLY"})
    assert rest.post("/subjects/%s/versions" % subject, {"schema": REC2})[1]["error_code"] == 42205
    assert rest.delete("/mode/%s" % subject) == (200, {"mode": "READONLY"})
    status, body = rest.post("/subjects/%s/versions" % subject, {"schema": REC, "id": 7})
    assert (status, body["error_code"]) == (422, 42205)  # an explicit id outside IMPORT


# ------------------------------------------------------------------ hostile input

def nothing_stored(rest, subject):
    assert subject not in rest.get("/subjects?deleted=true")[1]


def test_ten_megabyte_schema_is_413_and_nothing_stored(rest, subject):
    big = '{"type":"record","name":"R","doc":"%s","fields":[]}' % ("x" * (10 * 1024 * 1024))
    status, body = rest.post("/subjects/%s/versions" % subject, {"schema": big})
    assert status == 413 and body["error_code"] == 413
    # Under the body cap but over the schema cap: Confluent's 42209.
    medium = '{"type":"record","name":"R","doc":"%s","fields":[]}' % ("x" * (2 * 1024 * 1024))
    status, body = rest.post("/subjects/%s/versions" % subject, {"schema": medium})
    assert (status, body["error_code"]) == (422, 42209)
    nothing_stored(rest, subject)


@pytest.mark.parametrize("kind", ["AVRO", "JSON", "PROTOBUF"])
def test_ten_thousand_levels_of_nesting_are_refused(rest, subject, kind):
    n = 10000
    if kind == "AVRO":
        schema = '{"type":"array","items":' * n + '"int"' + "}" * n
    elif kind == "JSON":
        schema = '{"type":"array","items":' * n + "{}" + "}" * n
    else:
        schema = 'syntax = "proto3"; ' + "message M { " * n + "}" * n
    status, body = rest.post("/subjects/%s/versions" % subject, {"schema": schema, "schemaType": kind})
    assert (status, body["error_code"]) == (422, 42201), body
    nothing_stored(rest, subject)


def test_self_reference_and_unknown_reference_are_refused(rest, subject):
    refs = [{"name": "k.R", "subject": subject, "version": 1}]  # itself, not yet there
    status, body = rest.post("/subjects/%s/versions" % subject, {"schema": REC, "references": refs})
    assert (status, body["error_code"]) == (422, 42201)
    nothing_stored(rest, subject)
    # A recursive type (a schema that refers to itself by name) is fine.
    node = '{"type":"record","name":"Node","fields":[{"name":"next","type":["null","Node"]}]}'
    assert rest.post("/subjects/%s/versions" % subject, {"schema": node})[0] == 200
    tree = '{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#"}}}}'
    assert rest.post("/subjects/%s-json/versions" % subject, {"schema": tree, "schemaType": "JSON"})[0] == 200


def test_invalid_utf8_unknown_type_and_huge_ids(rest, subject):
    status, body = rest.call("POST", "/subjects/%s/versions" % subject, raw=b'{"schema":"\xff\xfe"}')
    assert status == 400 and body["error_code"] == 400
    status, body = rest.post("/subjects/%s/versions" % subject, {"schema": REC, "schemaType": "avro"})
    assert (status, body["error_code"]) == (422, 42201)  # schema types are upper case
    for path in ("/schemas/ids/2147483648", "/schemas/ids/99999999999999999999", "/schemas/ids/-1"):
        status, body = rest.get(path)
        assert (status, body["error_code"]) == (404, 40403), path
    rest.put("/mode/%s" % subject, {"mode": "IMPORT"})
    for big in (2 ** 31, 2 ** 63, 2 ** 64 + 1):
        status, body = rest.call("POST", "/subjects/%s/versions" % subject,
                                 raw=('{"schema":%s,"id":%d}' % (json.dumps(REC), big)).encode())
        assert status in (400, 422) and body["error_code"] in (400, 42201), (big, body)
    rest.delete("/mode/%s" % subject)
    nothing_stored(rest, subject)


def test_garbage_requests_leave_the_registry_serving(broker, rest, subject):
    host, port = urllib.parse.urlparse(broker.registry_url).netloc.split(":")
    for junk in (b"GARBAGE\r\n\r\n", b"POST /subjects/x/versions HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n",
                 b"GET /" + b"a" * 20000 + b" HTTP/1.1\r\n\r\n"):
        with socket.create_connection((host, int(port)), timeout=5) as s:
            s.sendall(junk)
            assert s.recv(64).startswith(b"HTTP/1.1 4")
    with socket.create_connection((host, int(port)), timeout=5) as s:
        s.sendall(b"POST /subjects/x/versions HTTP/1.1\r\nContent-Length: 100\r\n\r\n{")  # half a body, then gone
    assert rest.get("/subjects")[0] == 200
    nothing_stored(rest, "x")


# ------------------------------------------------------------------ TLS and HTTP Basic

def test_tls_and_basic_auth_with_the_brokers_users(tmp_path):
    import ssl
    import subprocess
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-days", "1",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    conf = tmp_path / "ketch.toml"
    conf.write_text('[[users]]\nname = "alice"\npassword = "alice-secret"\n')
    b = start_broker(tmp_path / "run", "--config", str(conf), "--tls-cert", str(cert), "--tls-key", str(key))
    try:
        assert b.registry_url.startswith("https://")
        ctx = ssl.create_default_context(cafile=str(cert))
        anon = Rest(b.registry_url, context=ctx)
        status, body = anon.get("/subjects")
        assert (status, body["error_code"]) == (401, 401)
        assert Rest(b.registry_url, "alice", "wrong", context=ctx).get("/subjects")[0] == 401
        alice = Rest(b.registry_url, "alice", "alice-secret", context=ctx)
        assert alice.post("/subjects/tls-value/versions", {"schema": REC}) == (200, {"id": 1})
        assert alice.get("/subjects") == (200, ["tls-value"])
        # The confluent-kafka client with basic.auth.user.info over TLS.
        from confluent_kafka.schema_registry import SchemaRegistryClient
        sr = SchemaRegistryClient({"url": b.registry_url, "ssl.ca.location": str(cert),
                                   "basic.auth.user.info": "alice:alice-secret"})
        assert sr.get_latest_version("tls-value").schema_id == 1
    finally:
        stop_broker(b)


def test_acls_guard_subjects_through_their_topics(tmp_path):
    """docs/schema_registry.md's rule (ketch's own, simpler than Confluent's
    commercial SUBJECT ACLs): a subject is guarded by its topic's ACLs."""
    from confluent_kafka.admin import (AclBinding, AclOperation, AclPermissionType, AdminClient, ResourcePatternType,
                                       ResourceType)
    users = {"admin": "admin-secret", "alice": "alice-secret", "bob": "bob-secret"}
    conf = tmp_path / "ketch.toml"
    conf.write_text("".join('[[users]]\nname = "%s"\npassword = "%s"\n' % kv for kv in users.items()))
    b = start_broker(tmp_path / "run", "--config", str(conf), "--listener", "SASL_PLAINTEXT=SASL_PLAINTEXT://127.0.0.1:0",
                     "--authorizer", "--super-users", "User:admin")
    try:
        sasl = json.loads((b.data_dir / "listeners.json").read_text())["listeners"]["SASL_PLAINTEXT"]["address"]
        admin = AdminClient({"bootstrap.servers": sasl, "security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "PLAIN",
                             "sasl.username": "admin", "sasl.password": users["admin"]})
        acl = AclBinding(ResourceType.TOPIC, "orders", ResourcePatternType.LITERAL, "User:alice", "*",
                         AclOperation.WRITE, AclPermissionType.ALLOW)
        for f in admin.create_acls([acl]).values():
            f.result(timeout=30)
        alice, bob, root = (Rest(b.registry_url, u, users[u]) for u in ("alice", "bob", "admin"))
        assert alice.post("/subjects/orders-value/versions", {"schema": REC}) == (200, {"id": 1})
        status, body = bob.post("/subjects/orders-value/versions", {"schema": REC2})
        assert (status, body["error_code"]) == (403, 40301)
        assert bob.get("/subjects/orders-value/versions")[0] == 403
        assert alice.get("/subjects/orders-value/versions") == (200, [1])  # WRITE implies DESCRIBE
        assert bob.get("/subjects") == (200, [])
        assert alice.get("/subjects") == (200, ["orders-value"])
        assert bob.get("/schemas/ids/1")[0] == 200  # any authenticated user may decode
        assert alice.put("/config", {"compatibility": "FULL"})[0] == 403
        assert root.put("/config", {"compatibility": "FULL"}) == (200, {"compatibility": "FULL"})
    finally:
        stop_broker(b)


def test_acknowledged_registrations_survive_kill_9(tmp_path):
    """Every registration answered 200 is in schemas.db (one SQLite commit,
    synchronous=FULL, before the answer); after SIGKILL and a restart they are all
    there with their ids, and new ids continue above them."""
    import signal
    from registry_util import read_registry_url
    b = start_broker(tmp_path)
    try:
        rest = Rest(b.registry_url)
        ids = {}
        for i in range(40):
            s = '{"type":"record","name":"K%d","fields":[]}' % i
            status, body = rest.post("/subjects/k-%d/versions" % i, {"schema": s})
            assert status == 200
            ids[i] = body["id"]
        rest.delete("/subjects/k-0")
        b.stop(signal.SIGKILL)
        b.start()
        rest = Rest(read_registry_url(b))
        for i, sid in ids.items():
            status, body = rest.get("/subjects/k-%d/versions/1?deleted=true" % i)
            assert (status, body.get("id")) == (200, sid), (i, body)
        assert "k-0" not in rest.get("/subjects")[1]  # the soft delete held too
        status, body = rest.post("/subjects/k-new/versions", {"schema": '{"type":"record","name":"New","fields":[]}'})
        assert status == 200 and body["id"] > max(ids.values())
    finally:
        stop_broker(b)


def test_a_taken_address_or_the_off_switch_leave_the_broker_serving(tmp_path):
    import socket as sk
    from conftest import BrokerProcess, _ketch_binary
    with sk.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        for name, args in (("taken", ["--schema-registry-addr", "127.0.0.1:%d" % port]),
                           ("off", ["--schema-registry=false"])):
            run = tmp_path / name
            (run / "data").mkdir(parents=True)
            b = BrokerProcess(_ketch_binary(), run / "data", run, args)
            b.start()
            try:
                listeners = json.loads((run / "data" / "listeners.json").read_text())
                assert "schema_registry" not in listeners
                assert "PLAINTEXT" in listeners["listeners"]
                with sk.create_connection((b.host, b.port), timeout=5):
                    pass  # the Kafka listener answers
                assert not (run / "data" / "schemas.db").exists()
            finally:
                stop_broker(b)
