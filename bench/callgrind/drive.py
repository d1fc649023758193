# bench/callgrind/run.sh drives this; see there.
# A fixed produce/fetch workload against a broker at argv[1]: N synchronous
# acks=all produces of one 1 KiB record each (one request per record), then
# one consumer reading them all back. Deterministic request count for produce.
import sys, time
from confluent_kafka import Producer, Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
bs = sys.argv[1]; n = int(sys.argv[2])
a = AdminClient({"bootstrap.servers": bs})
a.create_topics([NewTopic("cg", 1, 1)])["cg"].result()
p = Producer({"bootstrap.servers": bs, "acks": "all", "linger.ms": 0, "enable.idempotence": False})
v = b"x" * 1024
for i in range(n):
    p.produce("cg", v, key=str(i).encode(), partition=0)
    p.flush()
c = Consumer({"bootstrap.servers": bs, "group.id": "cg", "auto.offset.reset": "earliest", "enable.auto.commit": False,
              "fetch.wait.max.ms": 10, "max.partition.fetch.bytes": 1, "fetch.max.bytes": 1000000, "message.max.bytes": 1000000})
c.assign([TopicPartition("cg", 0, 0)])
got = 0
while got < n:
    for m in c.consume(500, 5):
        if m.error() is None: got += 1
c.close()
print("produced and consumed", n)
