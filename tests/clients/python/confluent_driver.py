#!/usr/bin/env python3
"""confluent-kafka (librdkafka) driver for the client test matrix; the command
vocabulary is tests/clients/DRIVERS.md. Run with the project venv's python."""

import json
import os
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from confluent_kafka import (  # noqa: E402
    OFFSET_BEGINNING, OFFSET_END, TIMESTAMP_CREATE_TIME, TIMESTAMP_LOG_APPEND_TIME,
    Consumer, ConsumerGroupState, ConsumerGroupTopicPartitions, ConsumerGroupType, IsolationLevel,
    KafkaError, KafkaException, Producer, TopicCollection, TopicPartition)
from confluent_kafka.admin import (  # noqa: E402
    AclBinding, AclBindingFilter, AclOperation, AclPermissionType, AdminClient, AlterConfigOpType, ConfigEntry,
    ConfigResource, ConfigSource, NewPartitions, NewTopic, OffsetSpec, ResourcePatternType, ResourceType,
    ScramCredentialInfo, ScramMechanism, UserScramCredentialDeletion, UserScramCredentialUpsertion)

from driver_common import INTERNAL_TOPICS, Unsupported, b64d, b64e, main, passthrough_config  # noqa: E402
from group_common import GroupRun  # noqa: E402
from kafka_errors import error_name  # noqa: E402

TIMEOUT_S = 30.0


def err_name(err):
    """KafkaError -> Kafka's name. Broker codes (>= -1) are Kafka's own codes (librdkafka
    renames a few, e.g. TOPIC_EXCEPTION for INVALID_TOPIC_EXCEPTION, so map by code);
    librdkafka's local errors (< -1) keep their '_'-prefixed librdkafka names."""
    if err is None:
        return None
    if isinstance(err, KafkaException):
        err = err.args[0]
    code = err.code()
    if code >= -1:
        return error_name(code)
    return err.name()


def future_error(f):
    """Waits for an admin future; (result, error name)."""
    try:
        return f.result(TIMEOUT_S), None
    except KafkaException as e:
        return None, err_name(e)


def admin(bootstrap, args):
    """An AdminClient; callers keep it referenced until their futures are done
    (a collected client fails its pending futures with _DESTROY)."""
    return AdminClient({"bootstrap.servers": bootstrap, **passthrough_config(args)})


def create_topics(bootstrap, args):
    try:
        new = [NewTopic(t["name"], num_partitions=t.get("partitions", -1),
                        replication_factor=t.get("replication_factor", -1),
                        config={k: str(v) for k, v in (t.get("configs") or {}).items()})
               for t in args["topics"]]
    except ValueError as e:  # the library refuses to send the request at all
        raise Unsupported("confluent-kafka rejects it locally: %s" % e)
    try:
        a = admin(bootstrap, args)
        futures = a.create_topics(
            new, operation_timeout=TIMEOUT_S, request_timeout=TIMEOUT_S,
            validate_only=bool(args.get("validate_only", False)))
    except ValueError as e:
        raise Unsupported("confluent-kafka rejects it locally: %s" % e)
    out = [{"name": t["name"], "error": future_error(futures[t["name"]])[1]} for t in args["topics"]]
    return {"results": out}


def list_topics(bootstrap, args):
    md = admin(bootstrap, args).list_topics(timeout=TIMEOUT_S)
    return {"topics": {name: len(t.partitions) for name, t in md.topics.items()
                       if name not in INTERNAL_TOPICS}}


def describe_topics(bootstrap, args):
    names = list(args["topics"])
    a = admin(bootstrap, args)
    futures = a.describe_topics(TopicCollection(names), request_timeout=TIMEOUT_S)
    out = []
    for name in names:
        desc, err = future_error(futures[name])
        parts = []
        if desc is not None:
            parts = [{"partition": p.id,
                      "leader": p.leader.id if p.leader is not None else -1,
                      "replicas": [n.id for n in p.replicas],
                      "isr": [n.id for n in p.isr]} for p in desc.partitions]
            parts.sort(key=lambda p: p["partition"])
        out.append({"name": name, "error": err, "partitions": parts})
    return {"topics": out}


def delete_topics(bootstrap, args):
    names = list(args["topics"])
    a = admin(bootstrap, args)
    futures = a.delete_topics(names, operation_timeout=TIMEOUT_S, request_timeout=TIMEOUT_S)
    out = [{"name": n, "error": future_error(futures[n])[1]} for n in names]
    return {"results": out}


def describe_cluster(bootstrap, args):
    a = admin(bootstrap, args)
    ops = bool(args.get("include_authorized_operations", False))
    c = a.describe_cluster(request_timeout=TIMEOUT_S, include_authorized_operations=ops).result(TIMEOUT_S)
    out = {"cluster_id": c.cluster_id,
           "controller": c.controller.id if c.controller is not None else -1,
           "brokers": [{"id": n.id, "host": n.host, "port": n.port} for n in c.nodes]}
    if ops:
        out["authorized_operations"] = sorted(o.name for o in (c.authorized_operations or []))
    return out


def produce(bootstrap, args):
    conf = {"bootstrap.servers": bootstrap,
            "acks": str(args.get("acks", "all")),
            "compression.type": args.get("compression", "none"),
            "enable.idempotence": bool(args.get("idempotent", False)),
            **passthrough_config(args)}
    p = Producer(conf)
    records = args["records"]
    results = [None] * len(records)
    if args.get("warm_metadata"):  # metadata first: elapsed_ms times the sends only
        p.list_topics(args["topic"], timeout=TIMEOUT_S)
    started = time.monotonic()

    def on_delivery(i):
        def cb(err, msg):
            ts_type, ts = msg.timestamp()
            results[i] = {"partition": msg.partition(), "offset": msg.offset(),
                          "timestamp": ts if ts_type != 0 else -1, "error": err_name(err)}
        return cb

    for i, r in enumerate(records):
        kw = {"value": b64d(r.get("value")), "key": b64d(r.get("key")), "on_delivery": on_delivery(i)}
        if r.get("headers"):
            kw["headers"] = [(h[0], b64d(h[1])) for h in r["headers"]]
        if r.get("timestamp") is not None:
            kw["timestamp"] = int(r["timestamp"])
        if r.get("partition") is not None:
            kw["partition"] = int(r["partition"])
        while True:
            try:
                p.produce(args["topic"], **kw)
                break
            except BufferError:  # local queue full: let deliveries drain
                p.poll(0.1)
        p.poll(0)
    left = p.flush(120)
    if left:
        raise RuntimeError("%d records still undelivered after 120 s" % left)
    return {"records": results, "elapsed_ms": int((time.monotonic() - started) * 1000)}


def produce_generated(bootstrap, args):
    """DRIVERS.md produce-generated: record i has key "k<i mod key_count>" and value
    "v<i>" padded with 'x' to value_size, or null when round i // key_count is in
    tombstone_rounds and (i mod key_count) % tombstone_modulo == 0."""
    count, keys = int(args["count"]), int(args["key_count"])
    size, modulo = int(args.get("value_size") or 0), int(args.get("tombstone_modulo") or 0)
    rounds = set(args.get("tombstone_rounds") or [])
    p = Producer({"bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": False,
                  "max.in.flight": 1, "linger.ms": 5, "compression.type": args.get("compression", "none"),
                  **passthrough_config(args)})
    offsets = [None] * count
    errors = {}

    def on_delivery(i):
        def cb(err, msg):
            if err is not None:
                errors[err_name(err)] = errors.get(err_name(err), 0) + 1
            offsets[i] = msg.offset()
        return cb

    for i in range(count):
        k = i % keys
        tomb = modulo > 0 and (i // keys) in rounds and k % modulo == 0
        v = None if tomb else ("v%d" % i).ljust(size, "x").encode()
        while True:
            try:
                p.produce(args["topic"], key=b"k%d" % k, value=v, partition=int(args.get("partition") or 0),
                          on_delivery=on_delivery(i))
                break
            except BufferError:
                p.poll(0.05)
        p.poll(0)
    if p.flush(120):
        raise RuntimeError("records still undelivered after 120 s")
    first = offsets[0] if count else -1
    return {"count": count, "errors": errors, "first_offset": first, "last_offset": offsets[-1] if count else -1,
            "dense": all(o == first + i for i, o in enumerate(offsets))}


def produce_flood(bootstrap, args):
    """DRIVERS.md produce-flood: one producer sends value_size-byte records to
    partition 0 (or to the listed partitions, in turn) as fast as the client lets it
    for duration_ms; what is still queued then is purged. Throttle times come from
    librdkafka's statistics (each broker's "throttle" window: the throttle_time_ms of
    its responses)."""
    size, duration = int(args.get("value_size", 1000)), float(args["duration_ms"]) / 1000.0
    partitions = [int(p) for p in args.get("partitions") or [0]]
    throttle = {}  # node id -> the largest throttle time that broker answered

    def on_stats(text):
        for b in json.loads(text).get("brokers", {}).values():
            t = b.get("throttle") or {}
            node = int(b.get("nodeid", -1))
            throttle[node] = max(throttle.get(node, 0), int(t.get("max", 0)))

    p = Producer({"bootstrap.servers": bootstrap, "acks": str(args.get("acks", "1")), "linger.ms": 5,
                  "batch.size": 65536, "queue.buffering.max.kbytes": 4096, "enable.idempotence": False,
                  "statistics.interval.ms": 500, "stats_cb": on_stats, **passthrough_config(args)})
    buckets = {part: {} for part in partitions}
    start = time.monotonic()

    def on_delivery(err, msg):
        if err is None:
            b = int((time.monotonic() - start) * 10)
            slots = buckets[msg.partition()]
            slots[b] = slots.get(b, 0) + len(msg.value())

    value = b"x" * size
    sent = 0
    while time.monotonic() - start < duration:
        try:
            p.produce(args["topic"], value=value, partition=partitions[sent % len(partitions)],
                      on_delivery=on_delivery)
        except BufferError:
            p.poll(0.005)
            continue
        sent += 1
        p.poll(0)
    p.purge(in_queue=True)
    p.flush(30)
    p.poll(0.6)  # one more statistics interval
    n = max((max(s) + 1 for s in buckets.values() if s), default=0)
    by_partition = {str(part): [s.get(i, 0) for i in range(n)] for part, s in buckets.items()}
    total = [sum(slots[i] for slots in by_partition.values()) for i in range(n)]
    return {"acked_bytes_per_100ms": total, "acked_bytes_per_100ms_by_partition": by_partition,
            "bytes": sum(total), "throttle_time_ms_max": max(throttle.values(), default=0),
            "throttle_time_ms_max_by_broker": {str(k): v for k, v in throttle.items() if k >= 0}}


def partitions_of(client, topic):
    md = client.list_topics(topic, timeout=TIMEOUT_S)
    t = md.topics[topic]
    if t.error is not None:
        raise RuntimeError("metadata for %s: %s" % (topic, err_name(t.error)))
    return sorted(t.partitions)


def consume(bootstrap, args):
    topic = args["topic"]
    conf = {"bootstrap.servers": bootstrap,
            "group.id": "ketch-driver-unused",  # required by the library; no group is joined (assign only)
            "enable.auto.commit": False,
            "enable.auto.offset.store": False,
            "isolation.level": args.get("isolation_level", "read_uncommitted"),
            **passthrough_config(args)}
    c = Consumer(conf)
    try:
        parts = args.get("partitions")
        if parts is None:
            parts = partitions_of(c, topic)
        start = args.get("from", "beginning")
        if start == "beginning":
            tps = [TopicPartition(topic, p, OFFSET_BEGINNING) for p in parts]
        elif start == "end":
            tps = [TopicPartition(topic, p, OFFSET_END) for p in parts]
        elif "offset" in start:
            tps = [TopicPartition(topic, p, int(start["offset"])) for p in parts]
        else:
            found = c.offsets_for_times([TopicPartition(topic, p, int(start["timestamp"])) for p in parts],
                                        timeout=TIMEOUT_S)
            tps = [TopicPartition(topic, tp.partition, tp.offset if tp.offset >= 0 else OFFSET_END)
                   for tp in found]
        c.assign(tps)
        want = int(args.get("max_records", 1 << 30))
        deadline = time.monotonic() + args.get("timeout_ms", 10000) / 1000.0
        out = []
        while len(out) < want:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            for m in c.consume(num_messages=min(want - len(out), 10000), timeout=min(left, 1.0)):
                if m.error() is not None:
                    if m.error().code() == KafkaError._PARTITION_EOF:
                        continue
                    raise RuntimeError("consume: %s %s" % (err_name(m.error()), m.error().str()))
                ts_type, ts = m.timestamp()
                out.append({"partition": m.partition(), "offset": m.offset(),
                            "key": b64e(m.key()), "value": b64e(m.value()),
                            "headers": [[k, b64e(v)] for k, v in (m.headers() or [])],
                            "timestamp": ts,
                            "timestamp_type": {TIMESTAMP_CREATE_TIME: "CreateTime",
                                               TIMESTAMP_LOG_APPEND_TIME: "LogAppendTime"}.get(ts_type)})
        return {"records": out[:want]}
    finally:
        c.close()


def _list_offsets(bootstrap, args, specs):
    topic = args["topic"]
    level = (IsolationLevel.READ_COMMITTED if args.get("isolation_level") == "read_committed"
             else IsolationLevel.READ_UNCOMMITTED)
    a = admin(bootstrap, args)
    futures = a.list_offsets(
        {TopicPartition(topic, int(p)): spec for p, spec in specs.items()},
        isolation_level=level, request_timeout=TIMEOUT_S)
    return {tp.partition: f.result(TIMEOUT_S) for tp, f in futures.items()}


def offsets_for_times(bootstrap, args):
    specs = {int(p): OffsetSpec.for_timestamp(int(ts)) for p, ts in args["timestamps"].items()}
    got = _list_offsets(bootstrap, args, specs)
    return {"offsets": {str(p): ({"offset": r.offset, "timestamp": r.timestamp} if r.offset >= 0 else None)
                        for p, r in sorted(got.items())}}


def list_offsets(bootstrap, args):
    spec = {"earliest": OffsetSpec.earliest, "latest": OffsetSpec.latest,
            "max_timestamp": OffsetSpec.max_timestamp}[args.get("spec", "latest")]()
    got = _list_offsets(bootstrap, args, {int(p): spec for p in args["partitions"]})
    return {"offsets": {str(p): r.offset for p, r in sorted(got.items())}}


# Kafka's names of the group states (DescribeGroups / ListGroups), for librdkafka's enum.
GROUP_STATES = {
    ConsumerGroupState.UNKNOWN: "Unknown", ConsumerGroupState.PREPARING_REBALANCING: "PreparingRebalance",
    ConsumerGroupState.COMPLETING_REBALANCING: "CompletingRebalance", ConsumerGroupState.STABLE: "Stable",
    ConsumerGroupState.DEAD: "Dead", ConsumerGroupState.EMPTY: "Empty",
}
GROUP_TYPES = {ConsumerGroupType.CLASSIC: "classic", ConsumerGroupType.CONSUMER: "consumer"}


def group_consume(bootstrap, args):
    """A subscribed Consumer; the rebalance callbacks run inside consume(), so the
    event log is in the order this thread saw things."""
    run = GroupRun(args)
    conf = {"bootstrap.servers": bootstrap, "group.id": run.group, "group.protocol": run.protocol,
            "enable.auto.commit": run.commit == "auto", "auto.offset.reset": run.start_from}
    if run.protocol == "classic":
        conf["heartbeat.interval.ms"] = 1000  # members notice a rebalance quickly
        if run.assignor:
            conf["partition.assignment.strategy"] = run.assignor
    elif run.assignor:
        conf["group.remote.assignor"] = run.assignor
    if run.instance_id:
        conf["group.instance.id"] = run.instance_id
    conf.update(passthrough_config(args))
    c = Consumer(conf)
    # Incremental (cooperative) callbacks carry only the change; eager ones the whole assignment.
    incremental = run.protocol == "consumer" or conf.get("partition.assignment.strategy") == "cooperative-sticky"

    def pairs(parts):
        return [(tp.topic, tp.partition) for tp in parts]

    c.subscribe(run.topics,
                on_assign=lambda _c, parts: run.assigned(pairs(parts), incremental),
                on_revoke=lambda _c, parts: run.revoked(pairs(parts), incremental),
                on_lost=lambda _c, parts: run.lost(pairs(parts)))
    try:
        while not run.should_stop():
            msgs = c.consume(num_messages=min(run.max_poll_records, run.left()), timeout=run.poll_timeout_s())
            batch = []
            for m in msgs:
                err = m.error()
                if err is None:
                    batch.append((m.topic(), m.partition(), m.offset(), m.key(), m.value()))
                elif err.fatal():
                    run.error = err_name(err)
                elif err.code() != KafkaError._PARTITION_EOF:
                    sys.stderr.write("consume: %s %s\n" % (err_name(err), err.str()))
            nxt = run.polled(batch)
            if run.error is not None:
                break
            if run.commit == "sync" and nxt:
                try:
                    done = c.commit(offsets=[TopicPartition(t, p, o) for (t, p), o in sorted(nxt.items())],
                                    asynchronous=False)
                    errors = [err_name(tp.error) for tp in done if tp.error is not None]
                    run.commit_result(nxt, errors[0] if errors else None)
                except KafkaException as e:
                    run.commit_result(nxt, err_name(e))
    finally:
        run.closing = True
        c.close()  # leaves the group (a static member stays); commits the stored offsets under "auto"
    return run.result()


def describe_groups(bootstrap, args):
    """describe_consumer_groups; the protocol type comes from the legacy list_groups
    (DescribeGroups), which the newer call does not report."""
    names = list(args["groups"])
    a = admin(bootstrap, args)
    futures = a.describe_consumer_groups(names, request_timeout=TIMEOUT_S)
    out = []
    for name in names:
        d, err = future_error(futures[name])
        g = {"group_id": name, "error": err, "state": None, "type": None, "protocol_type": None,
             "protocol": None, "members": []}
        if d is not None:
            g.update(state=GROUP_STATES.get(d.state), type=GROUP_TYPES.get(d.type), protocol=d.partition_assignor,
                     members=sorted(({"member_id": m.member_id, "instance_id": m.group_instance_id,
                                      "client_id": m.client_id, "host": m.host,
                                      "assignment": sorted([tp.topic, tp.partition]
                                                           for tp in m.assignment.topic_partitions)}
                                     for m in d.members), key=lambda m: m["member_id"]))
            with warnings.catch_warnings():  # list_groups is deprecated, and the only call that says it
                warnings.simplefilter("ignore", DeprecationWarning)
                legacy = [x for x in a.list_groups(name, timeout=TIMEOUT_S) if x.id == name and x.error is None]
            if legacy:
                g["protocol_type"] = legacy[0].protocol_type
        out.append(g)
    return {"groups": out}


def list_groups(bootstrap, args):
    a = admin(bootstrap, args)
    got = a.list_consumer_groups(request_timeout=TIMEOUT_S).result(TIMEOUT_S)
    if got.errors:
        raise RuntimeError("list_consumer_groups: %s" % got.errors)
    return {"groups": sorted(({"group_id": g.group_id, "state": GROUP_STATES.get(g.state),
                               "type": GROUP_TYPES.get(g.type), "protocol_type": None}  # not reported
                              for g in got.valid), key=lambda g: g["group_id"])}


def committed_offsets(bootstrap, args):
    group, topic = args["group"], args["topic"]
    a = admin(bootstrap, args)
    parts = args.get("partitions")
    if parts is None:
        parts = partitions_of(a, topic)
    request = [ConsumerGroupTopicPartitions(group, [TopicPartition(topic, int(p)) for p in parts])]
    got = a.list_consumer_group_offsets(request, request_timeout=TIMEOUT_S)[group].result(TIMEOUT_S)
    return {"offsets": {str(tp.partition): (tp.offset if tp.offset >= 0 else -1)
                        for tp in sorted(got.topic_partitions, key=lambda tp: tp.partition)}}


def _config_resource(args, **kw):
    rtype = {"topic": "TOPIC", "group": "GROUP"}.get(args.get("resource", "topic"), "BROKER")
    return ConfigResource(rtype, args["name"], **kw)


def describe_configs(bootstrap, args):
    a = admin(bootstrap, args)
    res = _config_resource(args)
    fut = a.describe_configs([res], request_timeout=TIMEOUT_S)  # librdkafka always asks for synonyms
    entries, err = future_error(list(fut.values())[0])
    if err:
        return {"error": err, "configs": {}}
    keys = args.get("keys")
    out = {}
    for name, c in entries.items():
        if keys and name not in keys:
            continue
        out[name] = {"value": c.value, "source": ConfigSource(c.source).name,
                     "read_only": bool(c.is_read_only), "sensitive": bool(c.is_sensitive)}
        if args.get("synonyms"):
            out[name]["synonyms"] = [[s.name, s.value, ConfigSource(s.source).name] for s in c.synonyms.values()]
    return {"error": None, "configs": out}


def alter_configs(bootstrap, args):
    a = admin(bootstrap, args)
    res = _config_resource(args, set_config={k: str(v) for k, v in args["configs"].items()})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # alter_configs is deprecated in favour of the incremental API
        fut = a.alter_configs([res], request_timeout=TIMEOUT_S,
                              validate_only=bool(args.get("validate_only", False)))
    return {"error": future_error(list(fut.values())[0])[1]}


def incremental_alter_configs(bootstrap, args):
    a = admin(bootstrap, args)
    entries = [ConfigEntry(o["key"], o.get("value"), incremental_operation=AlterConfigOpType[o["op"]])
               for o in args["ops"]]
    res = _config_resource(args, incremental_configs=entries)
    fut = a.incremental_alter_configs([res], request_timeout=TIMEOUT_S,
                                      validate_only=bool(args.get("validate_only", False)))
    return {"error": future_error(list(fut.values())[0])[1]}


def create_partitions(bootstrap, args):
    a = admin(bootstrap, args)
    fut = a.create_partitions([NewPartitions(args["topic"], int(args["count"]))], request_timeout=TIMEOUT_S,
                              validate_only=bool(args.get("validate_only", False)))
    return {"error": future_error(fut[args["topic"]])[1]}


def txn_err_name(e):
    """A transactional call's failure as Kafka's name; librdkafka reports a fenced
    producer as its local _FENCED (from PRODUCER_FENCED / INVALID_PRODUCER_EPOCH)."""
    name = err_name(e)
    return "PRODUCER_FENCED" if name == "_FENCED" else name


def txn_producer(bootstrap, args, transactional_id):
    return Producer({"bootstrap.servers": bootstrap, "transactional.id": transactional_id,
                     **passthrough_config(args)})


def txn_send(p, records):
    """Produces records (topic, partition, key, value) and waits for every delivery;
    returns the first delivery error name, or None."""
    errors = []

    def cb(err, msg):
        if err is not None:
            errors.append(txn_err_name(err))

    for r in records:
        kw = {"value": b64d(r.get("value")), "key": b64d(r.get("key")), "on_delivery": cb}
        if r.get("partition") is not None:
            kw["partition"] = int(r["partition"])
        p.produce(r["topic"], **kw)
    p.flush(TIMEOUT_S)
    return errors[0] if errors else None


def txn_produce(bootstrap, args):
    p = txn_producer(bootstrap, args, args["transactional_id"])
    out = []
    try:
        p.init_transactions(TIMEOUT_S)
        for t in args["transactions"]:
            try:
                p.begin_transaction()
                err = txn_send(p, t["records"])
                if err:
                    raise RuntimeError(err)
                if t.get("commit", True):
                    p.commit_transaction(TIMEOUT_S)
                else:
                    p.abort_transaction(TIMEOUT_S)
                out.append({"error": None})
            except KafkaException as e:
                out.append({"error": txn_err_name(e)})
                if e.args[0].txn_requires_abort():
                    p.abort_transaction(TIMEOUT_S)
                else:
                    break
    finally:
        p.flush(5)
    return {"transactions": out}


def txn_fence(bootstrap, args):
    """Two producers, one transactional id: the second's init fences the first,
    whose open transaction then cannot commit."""
    record = {"topic": args["topic"], "partition": 0, "key": None, "value": b64e(b"fenced")}
    first = txn_producer(bootstrap, args, args["transactional_id"])
    first.init_transactions(TIMEOUT_S)
    first.begin_transaction()
    if txn_send(first, [record]):
        raise RuntimeError("first producer could not send")
    second = txn_producer(bootstrap, args, args["transactional_id"])
    second.init_transactions(TIMEOUT_S)
    first_error = None
    try:
        first.commit_transaction(TIMEOUT_S)
    except KafkaException as e:
        first_error = txn_err_name(e)
    second_error = None
    try:
        second.begin_transaction()
        err = txn_send(second, [dict(record, value=b64e(b"second"))])
        if err:
            raise RuntimeError(err)
        second.commit_transaction(TIMEOUT_S)
    except KafkaException as e:
        second_error = txn_err_name(e)
    return {"first_error": first_error, "second_error": second_error}


def txn_transform(bootstrap, args):
    """Consume-transform-produce, exactly once: reads `input` in group `group`
    (read_committed, no auto commit), and for each poll writes every record's key
    and value to `output` (same partition) in one transaction that also commits
    the group's offsets (send_offsets_to_transaction). Stops after max_records,
    timeout_ms, or idle_ms without input. A failure ends the run (the caller
    restarts it, which fences a zombie and aborts its open transaction)."""
    group = args["group"]
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False,
                  "auto.offset.reset": "earliest", "isolation.level": "read_committed",
                  **passthrough_config(args)})
    p = txn_producer(bootstrap, args, args["transactional_id"])
    processed = txns = 0
    want = int(args.get("max_records", 1 << 30))
    deadline = time.monotonic() + args.get("timeout_ms", 60000) / 1000.0
    idle = args.get("idle_ms", 5000) / 1000.0
    last = time.monotonic()
    try:
        p.init_transactions(TIMEOUT_S)
        c.subscribe([args["input"]])
        while processed < want and time.monotonic() < deadline and time.monotonic() - last < idle:
            msgs = [m for m in c.consume(num_messages=int(args.get("batch", 50)), timeout=0.5)
                    if m.error() is None]
            if not msgs:
                continue
            last = time.monotonic()
            p.begin_transaction()
            for m in msgs:
                p.produce(args["output"], key=m.key(), value=m.value(), partition=m.partition())
            offsets = {}
            for m in msgs:
                offsets[(m.topic(), m.partition())] = m.offset() + 1
            p.send_offsets_to_transaction([TopicPartition(t, part, o) for (t, part), o in offsets.items()],
                                          c.consumer_group_metadata(), TIMEOUT_S)
            p.commit_transaction(TIMEOUT_S)
            processed += len(msgs)
            txns += 1
        return {"processed": processed, "transactions": txns, "error": None}
    except KafkaException as e:
        return {"processed": processed, "transactions": txns, "error": txn_err_name(e)}
    finally:
        c.close()


def _acl_fields(a, default):
    """Args of DRIVERS.md's ACL commands -> the library's enum values (names as Kafka's)."""
    rt = a.get("resource_type", default)
    return (ResourceType["BROKER" if rt == "CLUSTER" else rt], a.get("name"),
            ResourcePatternType[a.get("pattern", "LITERAL" if default != "ANY" else "ANY")],
            a.get("principal"), a.get("host"),
            AclOperation[a.get("operation", default)], AclPermissionType[a.get("permission", default)])


def _acl_json(b):
    return {"resource_type": "CLUSTER" if b.restype.name == "BROKER" else b.restype.name, "name": b.name, "pattern": b.resource_pattern_type.name,
            "principal": b.principal, "host": b.host, "operation": b.operation.name,
            "permission": b.permission_type.name}


def create_acls(bootstrap, args):
    a = admin(bootstrap, args)
    bindings = [AclBinding(*_acl_fields(x, "UNKNOWN")) for x in args["acls"]]
    futures = a.create_acls(bindings, request_timeout=TIMEOUT_S)
    return {"results": [{"error": future_error(futures[b])[1]} for b in bindings]}


def describe_acls(bootstrap, args):
    a = admin(bootstrap, args)
    acls, error = future_error(a.describe_acls(AclBindingFilter(*_acl_fields(args.get("filter", {}), "ANY")),
                                              request_timeout=TIMEOUT_S))
    return {"error": error, "acls": sorted((_acl_json(b) for b in acls or []), key=lambda j: sorted(j.items()))}


def delete_acls(bootstrap, args):
    a = admin(bootstrap, args)
    filters = [AclBindingFilter(*_acl_fields(f, "ANY")) for f in args["filters"]]
    futures = a.delete_acls(filters, request_timeout=TIMEOUT_S)
    out = []
    for f in filters:
        deleted, error = future_error(futures[f])
        out.append({"error": error,
                    "deleted": sorted((_acl_json(b) for b in deleted or []), key=lambda j: sorted(j.items()))})
    return {"results": out}


def alter_user_scram_credentials(bootstrap, args):
    a = admin(bootstrap, args)
    alterations = []
    for x in args.get("upsertions", []):
        info = ScramCredentialInfo(ScramMechanism[x.get("mechanism", "SCRAM_SHA_256")], x.get("iterations", 8192))
        alterations.append(UserScramCredentialUpsertion(x["user"], info, x["password"].encode()))
    for x in args.get("deletions", []):
        alterations.append(UserScramCredentialDeletion(x["user"], ScramMechanism[x.get("mechanism", "SCRAM_SHA_256")]))
    futures = a.alter_user_scram_credentials(alterations, request_timeout=TIMEOUT_S)
    return {"results": {user: future_error(f)[1] for user, f in sorted(futures.items())}}


def describe_user_scram_credentials(bootstrap, args):
    a = admin(bootstrap, args)
    users = args.get("users")
    out, error = {}, None
    try:
        if users is None:
            described = a.describe_user_scram_credentials(request_timeout=TIMEOUT_S).result(TIMEOUT_S)
            futures = {u: None for u in described}
        else:
            futures = a.describe_user_scram_credentials(users, request_timeout=TIMEOUT_S)
            described = {}
        for user in sorted(futures):
            if futures[user] is None:
                d, e = described[user], None
            else:
                d, e = future_error(futures[user])
            out[user] = {"error": e, "mechanisms": sorted(i.mechanism.name for i in d.scram_credential_infos)
                         if d else []}
    except KafkaException as e:
        error = err_name(e)
    return {"error": error, "users": out}


COMMANDS = {
    "alter-user-scram-credentials": alter_user_scram_credentials,
    "describe-user-scram-credentials": describe_user_scram_credentials,
    "create-acls": create_acls, "describe-acls": describe_acls, "delete-acls": delete_acls,
    "txn-produce": txn_produce, "txn-fence": txn_fence, "txn-transform": txn_transform,
    "describe-configs": describe_configs, "alter-configs": alter_configs,
    "incremental-alter-configs": incremental_alter_configs, "create-partitions": create_partitions,
    "create-topics": create_topics, "list-topics": list_topics, "describe-topics": describe_topics,
    "delete-topics": delete_topics, "describe-cluster": describe_cluster, "produce": produce,
    "consume": consume, "offsets-for-times": offsets_for_times, "list-offsets": list_offsets,
    "group-consume": group_consume, "describe-groups": describe_groups, "list-groups": list_groups,
    "committed-offsets": committed_offsets, "produce-generated": produce_generated,
    "produce-flood": produce_flood,
}

if __name__ == "__main__":
    main(COMMANDS, __doc__)
