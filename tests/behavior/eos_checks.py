"""The parts the exactly-once kill tests (test_exactly_once_kills*.py) share:
the input topic filled once, the group's committed offsets on `in`, and what a
read_committed consumer finds in `out`."""
import time

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic


def create_and_fill_input(bootstrap, partitions, records):
    """Topics `in` and `out`; `in` holds b"r%05d" % i for i < records, round robin."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for f in admin.create_topics([NewTopic(t, partitions, 1) for t in ("in", "out")]).values():
        f.result(30)
    p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True})
    for i in range(records):
        p.produce("in", value=b"r%05d" % i, partition=i % partitions)
    assert p.flush(30) == 0


def expected_values(records):
    return sorted(b"r%05d" % i for i in range(records))


def committed(conf, group, partitions):
    """{partition: committed offset} of `group` on `in`."""
    c = Consumer({**conf, "group.id": group, "enable.auto.commit": False})
    try:
        got = c.committed([TopicPartition("in", p) for p in range(partitions)], timeout=10)
        return {tp.partition: tp.offset for tp in got}
    finally:
        c.close()


def read_committed_out(bootstrap, partitions):
    """Every value of `out` a read_committed consumer sees, up to each partition's end."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "check", "enable.auto.commit": False,
                  "isolation.level": "read_committed", "enable.partition.eof": True})
    c.assign([TopicPartition("out", p, 0) for p in range(partitions)])
    values, eof = [], set()
    until = time.monotonic() + 30
    while len(eof) < partitions and time.monotonic() < until:
        for m in c.consume(500, timeout=5):
            if m.error() is None:
                values.append(m.value())
            elif m.error().code() == -191:  # _PARTITION_EOF
                eof.add(m.partition())
    c.close()
    return values
