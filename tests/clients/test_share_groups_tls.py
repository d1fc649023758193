"""ShareFetch over TLS (issue 23): ShareFetch answers the kept log batches as file chunks
(broker/share_reads.cc kept_records): sendfile regions on a plaintext socket, read and
written through the TLS stream on a TLS one (net's file chunks over TLS), one copy of
exactly those bytes where chunks cannot go. A real KafkaShareConsumer 4.3.1 over the SSL
listener (client certificate) reads records of varied sizes in batches larger than its
max.poll.records (whole batches: ShareAcquireMode batch_optimized), RELEASEs every 7th
record on its first delivery (redelivered from the middle of batches) and accepts the
rest: every record arrives intact (its value is derived from its offset; the client checks
each batch's CRC) and is accepted exactly once.

Behaviour reference, Apache Kafka 4.3.1: core/src/main/java/kafka/server/share/
SharePartition.java (acquireNewBatchRecords, acquire of released records).
The program is a single Java source file (tests/clients/share_tls/ShareTlsCheck.java)
run against the Java driver's kafka-clients jars.
"""

import json
import os
import subprocess

import pytest

from conftest import CLIENTS_DIR
from test_security import certs, secure_broker, security_config  # noqa: F401 (module fixtures)

COUNT = 3000


def test_share_fetch_over_tls_delivers_every_record_intact(secure_broker, certs, tmp_path):  # noqa: F811
    if secure_broker.external:
        pytest.skip("needs the broker this module starts")
    java = CLIENTS_DIR / "java"
    subprocess.run([str(java / "build.sh")], check=True)
    props = tmp_path / "client.properties"
    props.write_text("".join("%s=%s\n" % kv for kv in security_config("java", "SSL", certs).items()))
    program = CLIENTS_DIR / "share_tls" / "ShareTlsCheck.java"
    out = subprocess.run([os.environ.get("JAVA", "java"), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                          "-cp", "%s/*" % (java / "target" / "lib"), str(program),
                          secure_broker.addresses["SSL"], "share-tls", "share-tls-group", str(props), str(COUNT)],
                         capture_output=True, timeout=300)
    assert out.returncode == 0, out.stderr.decode()[-3000:]
    got = json.loads(out.stdout.decode().strip().splitlines()[-1])
    released = len(range(0, COUNT, 7))
    assert got == {"accepted": COUNT, "accepted_twice": 0, "delivered": COUNT + released, "released": released,
                   "wrong": 0}, got
