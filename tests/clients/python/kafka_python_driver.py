#!/usr/bin/env python3
"""kafka-python driver for the client test matrix; the command vocabulary is
tests/clients/DRIVERS.md. Run with the project venv's python."""

import logging
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import kafka.errors as kerr  # noqa: E402
from kafka import (  # noqa: E402
    ConsumerRebalanceListener, KafkaConsumer, KafkaProducer, OffsetAndMetadata, TopicPartition)
from kafka.admin import (  # noqa: E402
    ACL, ACLFilter, ACLOperation, ACLPermissionType, ACLResourcePatternType, KafkaAdminClient, OffsetSpec,
    ResourcePattern, ResourcePatternFilter, ResourceType)
from kafka.coordinator.assignors.cooperative_sticky import CooperativeStickyAssignor  # noqa: E402
from kafka.coordinator.assignors.range import RangePartitionAssignor  # noqa: E402
from kafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor  # noqa: E402
from kafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor  # noqa: E402

from driver_common import INTERNAL_TOPICS, Unsupported, b64d, b64e, main, passthrough_config  # noqa: E402
from group_common import GroupRun  # noqa: E402
from kafka_errors import error_name  # noqa: E402

TIMEOUT_MS = 30000


def code_name(code):
    """Kafka error code -> Kafka's name (kafka-python's own .message names differ for
    some codes, e.g. INVALID_TOPIC for INVALID_TOPIC_EXCEPTION, so map by code)."""
    return error_name(code)


def exc_name(e):
    """A kafka-python exception -> Kafka's name for broker errors, else the class name."""
    code = getattr(e, "errno", None)
    if isinstance(e, kerr.BrokerResponseError) and code is not None:
        return error_name(code)
    return type(e).__name__


def client_config(args):
    """The "config" passthrough in kafka-python's spelling (dots -> underscores, numbers as ints)."""
    out = {}
    for k, v in passthrough_config(args).items():
        if isinstance(v, str) and v.lstrip("-").isdigit():
            v = int(v)
        out[k.replace(".", "_")] = v
    return out


def admin(bootstrap, args):
    return KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=TIMEOUT_MS, **client_config(args))


def create_topics(bootstrap, args):
    spec = {}
    for t in args["topics"]:
        spec[t["name"]] = {"num_partitions": t.get("partitions", -1),
                           "replication_factor": t.get("replication_factor", -1),
                           "configs": {k: str(v) for k, v in (t.get("configs") or {}).items()}}
    a = admin(bootstrap, args)
    try:
        r = a.create_topics(spec, timeout_ms=TIMEOUT_MS, validate_only=bool(args.get("validate_only", False)),
                            raise_errors=False)
    finally:
        a.close()
    by_name = {t["name"]: code_name(t["error_code"]) for t in r["topics"]}
    return {"results": [{"name": t["name"], "error": by_name.get(t["name"], "MISSING_FROM_RESPONSE")}
                        for t in args["topics"]]}


def list_topics(bootstrap, args):
    a = admin(bootstrap, args)
    try:
        topics = a.describe_topics()
    finally:
        a.close()
    return {"topics": {t["name"]: len(t["partitions"]) for t in topics
                       if not t.get("is_internal") and t["name"] not in INTERNAL_TOPICS}}


def describe_topics(bootstrap, args):
    a = admin(bootstrap, args)
    try:
        topics = a.describe_topics(list(args["topics"]))
    finally:
        a.close()
    by_name = {t["name"]: t for t in topics}
    out = []
    for name in args["topics"]:
        t = by_name.get(name)
        if t is None:
            out.append({"name": name, "error": "MISSING_FROM_RESPONSE", "partitions": []})
            continue
        parts = [{"partition": p["partition_index"], "leader": p["leader_id"],
                  "replicas": list(p["replica_nodes"]), "isr": list(p["isr_nodes"])}
                 for p in t["partitions"]]
        parts.sort(key=lambda p: p["partition"])
        out.append({"name": name, "error": code_name(t["error_code"]), "partitions": parts})
    return {"topics": out}


def delete_topics(bootstrap, args):
    a = admin(bootstrap, args)
    try:
        r = a.delete_topics(list(args["topics"]), timeout_ms=TIMEOUT_MS, raise_errors=False)
    finally:
        a.close()
    by_name = {t["name"]: code_name(t["error_code"]) for t in r["topics"]}
    return {"results": [{"name": n, "error": by_name.get(n, "MISSING_FROM_RESPONSE")} for n in args["topics"]]}


def describe_cluster(bootstrap, args):
    a = admin(bootstrap, args)
    try:
        c = a.describe_cluster()
    finally:
        a.close()
    return {"cluster_id": c["cluster_id"], "controller": c["controller_id"],
            "brokers": [{"id": b["broker_id"], "host": b["host"], "port": b["port"]} for b in c["brokers"]]}


def produce(bootstrap, args):
    compression = args.get("compression", "none")
    p = KafkaProducer(bootstrap_servers=bootstrap,
                      acks={"all": -1, "-1": -1, "1": 1, "0": 0}[str(args.get("acks", "all"))],
                      compression_type=None if compression == "none" else compression,
                      enable_idempotence=bool(args.get("idempotent", False)),
                      **client_config(args))
    try:
        futures = []
        for r in args["records"]:
            headers = [(h[0], b64d(h[1])) for h in (r.get("headers") or [])]
            if any(v is None for _, v in headers):
                raise Unsupported("kafka-python's producer refuses null header values")
            if r.get("key") is None and r.get("value") is None:
                raise Unsupported("kafka-python's producer refuses a record with neither key nor value")
            futures.append(p.send(args["topic"], value=b64d(r.get("value")), key=b64d(r.get("key")),
                                  headers=headers or None, partition=r.get("partition"),
                                  timestamp_ms=r.get("timestamp")))
        p.flush(timeout=120)
        out = []
        for f in futures:
            try:
                md = f.get(timeout=TIMEOUT_MS / 1000)
                out.append({"partition": md.partition, "offset": md.offset,
                            "timestamp": md.timestamp if md.timestamp is not None else -1, "error": None})
            except kerr.KafkaError as e:
                out.append({"partition": None, "offset": None, "timestamp": -1, "error": exc_name(e)})
        return {"records": out}
    finally:
        p.close(timeout=10)


def consumer(bootstrap, args):
    return KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False,
                         isolation_level=args.get("isolation_level", "read_uncommitted"),
                         request_timeout_ms=TIMEOUT_MS + 5000, **client_config(args))


def consume(bootstrap, args):
    topic = args["topic"]
    c = consumer(bootstrap, args)
    try:
        parts = args.get("partitions")
        if parts is None:
            deadline = time.monotonic() + TIMEOUT_MS / 1000
            while (found := c.partitions_for_topic(topic)) is None and time.monotonic() < deadline:
                time.sleep(0.1)  # metadata not there yet: kafka-python has no blocking call for it
            if found is None:
                raise RuntimeError("no metadata for topic %s" % topic)
            parts = sorted(found)
        tps = [TopicPartition(topic, p) for p in parts]
        c.assign(tps)
        start = args.get("from", "beginning")
        if start == "beginning":
            c.seek_to_beginning(*tps)
        elif start == "end":
            c.seek_to_end(*tps)
        elif "offset" in start:
            for tp in tps:
                c.seek(tp, int(start["offset"]))
        else:
            found = c.offsets_for_times({tp: int(start["timestamp"]) for tp in tps})
            for tp in tps:
                if found.get(tp) is None:
                    c.seek_to_end(tp)
                else:
                    c.seek(tp, found[tp].offset)
        want = int(args.get("max_records", 1 << 30))
        deadline = time.monotonic() + args.get("timeout_ms", 10000) / 1000.0
        out = []
        while len(out) < want:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            batches = c.poll(timeout_ms=int(min(left, 1.0) * 1000), max_records=want - len(out))
            for tp in sorted(batches, key=lambda tp: tp.partition):
                for m in batches[tp]:
                    out.append({"partition": m.partition, "offset": m.offset,
                                "key": b64e(m.key), "value": b64e(m.value),
                                "headers": [[k, b64e(v)] for k, v in (m.headers or [])],
                                "timestamp": m.timestamp,
                                "timestamp_type": {0: "CreateTime", 1: "LogAppendTime"}.get(m.timestamp_type)})
        return {"records": out[:want]}
    finally:
        c.close()


def offsets_for_times(bootstrap, args):
    topic = args["topic"]
    c = consumer(bootstrap, args)
    try:
        got = c.offsets_for_times({TopicPartition(topic, int(p)): int(ts) for p, ts in args["timestamps"].items()})
    finally:
        c.close()
    out = {}
    for tp, r in sorted(got.items(), key=lambda kv: kv[0].partition):
        out[str(tp.partition)] = None if r is None else {"offset": r.offset, "timestamp": r.timestamp}
    return {"offsets": out}


def list_offsets(bootstrap, args):
    spec = {"earliest": OffsetSpec.EARLIEST, "latest": OffsetSpec.LATEST,
            "max_timestamp": OffsetSpec.MAX_TIMESTAMP}.get(args.get("spec", "latest"))
    if spec is None:
        raise Unsupported("spec %r" % args.get("spec"))
    a = admin(bootstrap, args)
    try:
        got = a.list_partition_offsets({TopicPartition(args["topic"], int(p)): spec for p in args["partitions"]},
                                       isolation_level=args.get("isolation_level", "read_uncommitted"))
    finally:
        a.close()
    return {"offsets": {str(tp.partition): r.offset for tp, r in sorted(got.items(), key=lambda kv: kv[0].partition)}}


ASSIGNORS = {"range": RangePartitionAssignor, "roundrobin": RoundRobinPartitionAssignor,
             "sticky": StickyPartitionAssignor, "cooperative-sticky": CooperativeStickyAssignor}


class _Listener(ConsumerRebalanceListener):
    """Forwards the rebalance callbacks (run inside poll) to the GroupRun log."""

    def __init__(self, run, incremental):
        self.run, self.incremental = run, incremental

    def on_partitions_revoked(self, revoked):
        self.run.revoked([(tp.topic, tp.partition) for tp in revoked], self.incremental)

    def on_partitions_assigned(self, assigned):
        self.run.assigned([(tp.topic, tp.partition) for tp in assigned], self.incremental)

    def on_partitions_lost(self, lost):
        self.run.lost([(tp.topic, tp.partition) for tp in lost])


def group_consume(bootstrap, args):
    run = GroupRun(args)
    if run.protocol != "classic":
        raise Unsupported("kafka-python speaks the classic group protocol only")
    kw = {"group_id": run.group, "enable_auto_commit": run.commit == "auto", "auto_offset_reset": run.start_from,
          "max_poll_records": run.max_poll_records, "heartbeat_interval_ms": 1000}
    if run.instance_id:
        kw["group_instance_id"] = run.instance_id
    if run.assignor:
        if run.assignor not in ASSIGNORS:
            raise Unsupported("kafka-python has no assignor %r" % run.assignor)
        kw["partition_assignment_strategy"] = (ASSIGNORS[run.assignor],)
    kw.update(client_config(args))
    c = KafkaConsumer(bootstrap_servers=bootstrap, request_timeout_ms=TIMEOUT_MS + 5000, **kw)
    # Incremental (cooperative) callbacks carry only the change; eager ones the whole assignment.
    c.subscribe(topics=run.topics, listener=_Listener(run, run.assignor == "cooperative-sticky"))
    try:
        while not run.should_stop():
            polled = c.poll(timeout_ms=int(run.poll_timeout_s() * 1000), max_records=min(run.max_poll_records, run.left()))
            batch = [(m.topic, m.partition, m.offset, m.key, m.value)
                     for tp in sorted(polled, key=lambda tp: (tp.topic, tp.partition)) for m in polled[tp]]
            nxt = run.polled(batch)
            if run.commit == "sync" and nxt:
                try:
                    c.commit({TopicPartition(t, p): OffsetAndMetadata(o, "", -1) for (t, p), o in nxt.items()})
                    run.commit_result(nxt, None)
                except kerr.CommitFailedError:
                    run.commit_result(nxt, "COMMIT_FAILED")  # the client lost its generation; no Kafka error code
                except kerr.KafkaError as e:
                    run.commit_result(nxt, exc_name(e))
    finally:
        run.closing = True
        c.close()  # leaves the group (a static member stays); commits the consumed offsets under "auto"
    return run.result()


def _error_code_name(text):
    """kafka-python's describe_groups error text "[Error 69] GroupIdNotFoundError: ..." -> Kafka's name."""
    if text is None:
        return None
    m = re.match(r"\[Error (-?\d+)\]", text)
    return code_name(int(m.group(1))) if m else text


def _assignment_pairs(assignment):
    """describe_groups' decoded member assignment {"assigned_partitions": [{"topic", "partitions"}]}
    (raw bytes when kafka-python could not decode it) -> [[t, p]]."""
    if not isinstance(assignment, dict):
        return []
    return sorted([a["topic"], p] for a in assignment.get("assigned_partitions") or [] for p in a["partitions"])


def describe_groups(bootstrap, args):
    names = list(args["groups"])
    a = admin(bootstrap, args)
    try:
        got = a.describe_groups(names)
    finally:
        a.close()
    out = []
    for name in names:
        g = got.get(name)
        if g is None:
            out.append({"group_id": name, "error": "MISSING_FROM_RESPONSE", "state": None, "type": None,
                        "protocol_type": None, "protocol": None, "members": []})
            continue
        members = [{"member_id": m["member_id"], "instance_id": m.get("group_instance_id"),
                    "client_id": m["client_id"], "host": m["client_host"],
                    "assignment": _assignment_pairs(m.get("member_assignment"))} for m in g["members"]]
        out.append({"group_id": name, "error": _error_code_name(g["error"]), "state": g["group_state"],
                    "type": None,  # DescribeGroups does not say
                    "protocol_type": g["protocol_type"], "protocol": g["protocol_data"],
                    "members": sorted(members, key=lambda m: m["member_id"])})
    return {"groups": out}


def list_groups(bootstrap, args):
    a = admin(bootstrap, args)
    try:
        got = a.list_groups()
    finally:
        a.close()
    return {"groups": sorted(({"group_id": g["group_id"], "state": g.get("group_state"),
                               "type": g.get("group_type"), "protocol_type": g.get("protocol_type")}
                              for g in got), key=lambda g: g["group_id"])}


def committed_offsets(bootstrap, args):
    group, topic = args["group"], args["topic"]
    a = admin(bootstrap, args)
    try:
        parts = args.get("partitions")
        if parts is None:
            parts = sorted(p["partition_index"] for t in a.describe_topics([topic]) if t["name"] == topic
                           for p in t["partitions"])
        got = a.list_group_offsets({group: [TopicPartition(topic, int(p)) for p in parts]})[group]
    finally:
        a.close()
    out = {}
    for p in parts:
        o = got.get(TopicPartition(topic, int(p)))
        out[str(p)] = o.offset if o is not None and o.offset >= 0 else -1
    return {"offsets": out}


def _resource(args, configs=None):
    from kafka.admin import ConfigResource, ConfigResourceType
    if args.get("resource") == "group":
        raise Unsupported("kafka-python has no GROUP config resource")
    rtype = ConfigResourceType.TOPIC if args.get("resource", "topic") == "topic" else ConfigResourceType.BROKER
    return ConfigResource(rtype, args["name"], configs=configs)


def describe_configs(bootstrap, args):
    """kafka-python's describe_configs drops each resource's error code, so this
    sends the library's own request and reads the response itself."""
    keys = args.get("keys")
    res = _resource(args, {k: None for k in keys} if keys else None)
    a = admin(bootstrap, args)
    try:
        req = a._describe_configs_request([res], bool(args.get("synonyms", False)))
        node = int(args["name"]) if args.get("resource", "topic") != "topic" else None
        resp = a._manager.run(a._manager.send, req, node)
    except kerr.KafkaError as e:
        return {"error": exc_name(e), "configs": {}}
    finally:
        a.close()
    result = resp.results[0]
    if result.error_code:
        return {"error": code_name(result.error_code), "configs": {}}
    entries = next(iter(next(iter(a._describe_configs_process_responses([resp], "all").values())).values()))
    out = {}
    for name, c in entries.items():
        out[name] = {"value": c["value"], "source": str(c["config_source"]),
                     "read_only": bool(c["read_only"]), "sensitive": bool(c["is_sensitive"])}
        if args.get("synonyms"):
            out[name]["synonyms"] = [[s["name"], s["value"], str(s["source"])] for s in c["synonyms"]]
    return {"error": None, "configs": out}


def _alter_result(r):
    text = next(iter(next(iter(r.values())).values()))
    if text == "OK":
        return {"error": None}
    return {"error": _error_code_name(text)}


def alter_configs(bootstrap, args):
    a = admin(bootstrap, args)
    try:
        r = a.alter_configs([_resource(args, dict(args["configs"]))], incremental=False, raise_on_unknown=False,
                            validate_only=bool(args.get("validate_only", False)))
    except kerr.KafkaError as e:
        return {"error": exc_name(e)}
    finally:
        a.close()
    return _alter_result(r)


def incremental_alter_configs(bootstrap, args):
    from kafka.admin import AlterConfigOp
    ops = {o["key"]: (AlterConfigOp[o["op"]], o.get("value")) for o in args["ops"]}
    a = admin(bootstrap, args)
    try:
        r = a.alter_configs([_resource(args, ops)], incremental=True, raise_on_unknown=False,
                            validate_only=bool(args.get("validate_only", False)))
    except kerr.KafkaError as e:
        return {"error": exc_name(e)}
    finally:
        a.close()
    return _alter_result(r)


def create_partitions(bootstrap, args):
    a = admin(bootstrap, args)
    try:
        r = a.create_partitions({args["topic"]: int(args["count"])}, timeout_ms=TIMEOUT_MS,
                                validate_only=bool(args.get("validate_only", False)), raise_errors=False)
    finally:
        a.close()
    results = r["results"] if isinstance(r, dict) else r.results
    res = results[0]
    code = res["error_code"] if isinstance(res, dict) else res.error_code
    return {"error": code_name(code)}


def txn_producer(bootstrap, args, transactional_id):
    return KafkaProducer(bootstrap_servers=bootstrap, transactional_id=transactional_id, **client_config(args))


def txn_send(p, records):
    futures = [p.send(r["topic"], key=b64d(r.get("key")), value=b64d(r.get("value")), partition=r.get("partition"))
               for r in records]
    p.flush(timeout=TIMEOUT_MS / 1000)
    for f in futures:
        f.get(timeout=TIMEOUT_MS / 1000)


def txn_produce(bootstrap, args):
    p = txn_producer(bootstrap, args, args["transactional_id"])
    out = []
    try:
        p.init_transactions()
        for t in args["transactions"]:
            try:
                p.begin_transaction()
                txn_send(p, t["records"])
                if t.get("commit", True):
                    p.commit_transaction()
                else:
                    p.abort_transaction()
                out.append({"error": None})
            except kerr.KafkaError as e:
                out.append({"error": exc_name(e)})
                break
    finally:
        p.close(timeout=10)
    return {"transactions": out}


def txn_fence(bootstrap, args):
    record = {"topic": args["topic"], "partition": 0, "key": None, "value": b64e(b"fenced")}
    first = txn_producer(bootstrap, args, args["transactional_id"])
    second = txn_producer(bootstrap, args, args["transactional_id"])
    try:
        first.init_transactions()
        first.begin_transaction()
        txn_send(first, [record])
        second.init_transactions()
        first_error = second_error = None
        try:
            first.commit_transaction()
        except kerr.KafkaError as e:
            first_error = exc_name(e)
        try:
            second.begin_transaction()
            txn_send(second, [dict(record, value=b64e(b"second"))])
            second.commit_transaction()
        except kerr.KafkaError as e:
            second_error = exc_name(e)
        return {"first_error": first_error, "second_error": second_error}
    finally:
        first.close(timeout=0)
        second.close(timeout=10)


def no_txn(bootstrap, args):
    raise Unsupported("kafka-python driver: txn-transform is covered by the java and confluent drivers")


def _acl_args(a, default):
    """DRIVERS.md's ACL fields -> kafka-python's ACL / ACLFilter arguments."""
    pattern_cls = ResourcePattern if default == "UNKNOWN" else ResourcePatternFilter
    return dict(principal=a.get("principal"), host=a.get("host", "*" if default == "UNKNOWN" else None),
                operation=ACLOperation[a.get("operation", default)],
                permission_type=ACLPermissionType[a.get("permission", default)],
                resource_pattern=pattern_cls(ResourceType[a.get("resource_type", default)], a.get("name"),
                                             ACLResourcePatternType[a.get("pattern", "LITERAL" if default == "UNKNOWN"
                                                                          else "ANY")]))


def _acl_json(acl):
    r = acl.resource_pattern
    return {"resource_type": r.resource_type.name, "name": r.resource_name, "pattern": r.pattern_type.name,
            "principal": acl.principal, "host": acl.host, "operation": acl.operation.name,
            "permission": acl.permission_type.name}


def _sorted_acls(acls):
    return sorted((_acl_json(a) for a in acls), key=lambda j: sorted(j.items()))


def _err_class_name(cls):
    return None if cls is kerr.NoError else error_name(cls.errno)


def create_acls(bootstrap, args):
    acls = [ACL(**_acl_args(a, "UNKNOWN")) for a in args["acls"]]
    a = admin(bootstrap, args)
    try:
        r = a.create_acls(acls)
    finally:
        a.close()
    failed = iter(r["failed"])  # the errors of the refused ones, in input order
    ok = {id(x) for x in r["succeeded"]}
    return {"results": [{"error": None if id(x) in ok else _err_class_name(next(failed))} for x in acls]}


def describe_acls(bootstrap, args):
    a = admin(bootstrap, args)
    try:
        acls, err = a.describe_acls(ACLFilter(**_acl_args(args.get("filter", {}), "ANY")))
    except kerr.BrokerResponseError as e:
        return {"error": exc_name(e), "acls": []}
    finally:
        a.close()
    return {"error": _err_class_name(err), "acls": _sorted_acls(acls)}


def delete_acls(bootstrap, args):
    filters = [ACLFilter(**_acl_args(f, "ANY")) for f in args["filters"]]
    a = admin(bootstrap, args)
    try:
        results = a.delete_acls(filters)
    finally:
        a.close()
    return {"results": [{"error": _err_class_name(err), "deleted": _sorted_acls(deleted)}
                        for _, deleted, err in results]}


COMMANDS = {
    "create-acls": create_acls, "describe-acls": describe_acls, "delete-acls": delete_acls,
    "describe-configs": describe_configs, "alter-configs": alter_configs,
    "incremental-alter-configs": incremental_alter_configs, "create-partitions": create_partitions,
    "create-topics": create_topics, "list-topics": list_topics, "describe-topics": describe_topics,
    "delete-topics": delete_topics, "describe-cluster": describe_cluster, "produce": produce,
    "consume": consume, "offsets-for-times": offsets_for_times, "list-offsets": list_offsets,
    "group-consume": group_consume, "describe-groups": describe_groups, "list-groups": list_groups,
    "txn-produce": txn_produce, "txn-fence": txn_fence, "txn-transform": no_txn,
    "committed-offsets": committed_offsets,
}

if __name__ == "__main__":
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    main(COMMANDS, __doc__)
