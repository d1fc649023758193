"""ketch's stand-in for kafka-python's ``test/service.py``, which its sdist does not ship.

kafka-python's integration fixtures (test/integration/fixtures.py) import
``ExternalService`` and ``SpawnedService`` from it. With ``KAFKA_URI`` set the fixtures
only wrap the broker that is already running in an ``ExternalService``; spawning a broker
of their own (``SpawnedService``: a ZooKeeper or an Apache Kafka started from a local
distribution and kafka-python's servers/ resources, neither of which ships in the sdist)
is not something this suite does, so it fails with a clear message instead.
Written for ketch (tests/outside/README.md); no kafka-python code is copied here.
"""


class ExternalService:
    """A broker somebody else runs: nothing to start, stop or read logs from."""

    def __init__(self, host, port):
        self.host = host
        self.port = port

    def start(self):
        pass

    def stop(self):
        pass

    def dump_logs(self):
        pass

    def wait_for(self, pattern, timeout=30):
        return True


class SpawnedService:
    """Starting a ZooKeeper or Kafka of the test's own: not available here."""

    def __init__(self, args=None, env=None):
        raise RuntimeError(
            "this fixture spawns its own ZooKeeper/Kafka from a local Kafka distribution "
            "(kafka-python's servers/ directory is not in its sdist); only KAFKA_URI brokers are tested")
