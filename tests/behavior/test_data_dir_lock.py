"""One data directory, one broker: a second ketch started on a directory in use
exits with an error before touching it, and the first keeps serving. Kafka locks
each log directory the same way (storage/.../LogManager.lockLogDirs: "Failed to
acquire lock on file .lock in <dir>. A Kafka instance in another process or thread
is using this directory."). The lock dies with its process, SIGKILL included."""

import signal
import subprocess

from confluent_kafka.admin import AdminClient, NewTopic


def topics(bootstrap):
    return set(AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=10).topics)


def test_a_second_broker_on_the_same_data_dir_refuses_to_start(broker):
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic("kept", 3, 1)])["kept"].result(30)
    second = subprocess.run([broker.binary, "--listen", "127.0.0.1:0", "--data-dir", str(broker.data_dir),
                             "--log-level", "info"], capture_output=True, timeout=60)
    assert second.returncode != 0
    assert b"Failed to acquire lock on file .lock in" in second.stdout + second.stderr, second
    assert "kept" in topics(broker.bootstrap)  # the first still serves its directory
    broker.restart(signal.SIGKILL)  # the kernel released the killed process's lock
    assert "kept" in topics(broker.bootstrap)
