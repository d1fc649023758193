package ketch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * group-consume: a subscribed KafkaConsumer in a consumer group (DRIVERS.md). Rebalances
 * happen inside poll(), so the event log (assign / lost / poll / commit) is in the order
 * this one thread saw them.
 */
final class GroupConsumeCommand {
  private static final Comparator<TopicPartition> ORDER =
      Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

  private final ArrayNode records = Json.array();
  private final ArrayNode assignments = Json.array();
  private final ArrayNode events = Json.array();
  private final ObjectNode committed = Json.object();
  private final TreeSet<TopicPartition> owned = new TreeSet<>(ORDER);
  private final boolean incremental;
  /** When the idle clock last restarted (an assignment or a record); -1 before any assignment. */
  private long activeAt = -1;
  /** Callbacks while leaving the group (in close) are not logged. */
  private boolean closing;

  private GroupConsumeCommand(boolean incremental) {
    this.incremental = incremental;
  }

  static ObjectNode run(Properties base, ObjectNode args) throws Exception {
    List<String> topics = args.has("topics") ? Json.stringList(args, "topics") : List.of(Json.stringArg(args, "topic"));
    String group = Json.stringArg(args, "group");
    long max = Json.longArg(args, "max_records", Long.MAX_VALUE);
    long timeoutMs = Json.longArg(args, "timeout_ms", 60_000);
    long idleMs = Json.longArg(args, "idle_ms", 3_000);
    long processMs = Json.longArg(args, "process_ms", 0);
    String commit = Json.stringArg(args, "commit", "sync");
    String from = Json.stringArg(args, "from", "earliest");
    String protocol = Json.stringArg(args, "protocol", "classic");
    String assignor = Json.stringArg(args, "assignor", null);
    String instanceId = Json.stringArg(args, "instance_id", null);
    String stopFile = Json.stringArg(args, "stop_file", null);
    if (!List.of("sync", "auto", "none").contains(commit)) {
      throw new Driver.UsageError("\"commit\" must be sync, auto or none");
    }
    if (!List.of("earliest", "latest").contains(from)) {
      throw new Driver.UsageError("\"from\" must be earliest or latest");
    }
    List<String> settings = new ArrayList<>(List.of(
        "group.id", group,
        "group.protocol", protocol,
        "enable.auto.commit", Boolean.toString(commit.equals("auto")),
        "auto.offset.reset", from,
        "max.poll.records", Long.toString(Json.longArg(args, "max_poll_records", 500)),
        "key.deserializer", ByteArrayDeserializer.class.getName(),
        "value.deserializer", ByteArrayDeserializer.class.getName()));
    boolean incremental;
    if (protocol.equals("classic")) {
      // A short heartbeat lets members notice a rebalance quickly (classic protocol only:
      // under the consumer protocol the broker sets the interval).
      settings.addAll(List.of("heartbeat.interval.ms", "1000"));
      if (assignor != null) {
        settings.addAll(List.of("partition.assignment.strategy", assignorClass(assignor)));
      }
      incremental = assignor != null && assignorClass(assignor).equals(CooperativeStickyAssignor.class.getName());
    } else if (protocol.equals("consumer")) {
      if (assignor != null) {
        settings.addAll(List.of("group.remote.assignor", assignor));
      }
      incremental = true;
    } else {
      throw new Driver.UsageError("\"protocol\" must be classic or consumer");
    }
    if (instanceId != null) {
      settings.addAll(List.of("group.instance.id", instanceId));
    }
    Properties config = Driver.clientConfig(base, args, settings.toArray(new String[0]));
    GroupConsumeCommand state = new GroupConsumeCommand(incremental);
    return state.consume(new KafkaConsumer<>(config), topics, max, timeoutMs, idleMs, processMs,
        commit, stopFile == null ? null : Path.of(stopFile));
  }

  private static String assignorClass(String name) {
    switch (name) {
      case "range":
        return RangeAssignor.class.getName();
      case "roundrobin":
        return RoundRobinAssignor.class.getName();
      case "sticky":
        return StickyAssignor.class.getName();
      case "cooperative-sticky":
        return CooperativeStickyAssignor.class.getName();
      default:
        return name;  // a class name
    }
  }

  private ObjectNode consume(KafkaConsumer<byte[], byte[]> c, List<String> topics, long max, long timeoutMs,
      long idleMs, long processMs, String commit, Path stopFile) throws Exception {
    ObjectNode root = Json.object();
    long count = 0;
    try {
      c.subscribe(topics, new Listener());
      long deadline = System.currentTimeMillis() + timeoutMs;
      while (count < max) {
        long now = System.currentTimeMillis();
        if (now >= deadline || (activeAt >= 0 && now - activeAt >= idleMs)
            || (stopFile != null && Files.exists(stopFile))) {
          break;
        }
        ConsumerRecords<byte[], byte[]> polled = c.poll(Duration.ofMillis(Math.min(200, deadline - now)));
        Map<TopicPartition, Long> next = new HashMap<>();
        Map<TopicPartition, Long> rewind = new HashMap<>();
        long n = 0;
        for (ConsumerRecord<byte[], byte[]> r : polled) {
          TopicPartition tp = new TopicPartition(r.topic(), r.partition());
          if (count + n >= max) {
            rewind.putIfAbsent(tp, r.offset());  // polled but not processed
            continue;
          }
          records.add(record(r));
          next.put(tp, r.offset() + 1);
          n++;
        }
        if (n == 0) {
          continue;
        }
        count += n;
        activeAt = System.currentTimeMillis();
        events.addArray().add("poll").add(n);
        if (processMs > 0) {
          Thread.sleep(processMs);
        }
        if (commit.equals("sync")) {
          commitSync(c, next);
        } else if (commit.equals("auto")) {
          // The commit on close covers the position: put it back after the last processed record.
          rewind.forEach(c::seek);
        }
      }
    } catch (KafkaException e) {
      root.put("error", Json.errorName(e));
    } finally {
      closing = true;
      c.close(Duration.ofSeconds(10));  // leaves the group (a static member stays)
    }
    root.set("records", records);
    root.set("assignments", assignments);
    root.set("committed", committed);
    root.set("events", events);
    return root;
  }

  private void commitSync(KafkaConsumer<byte[], byte[]> c, Map<TopicPartition, Long> next) throws Exception {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    ObjectNode logged = Json.object();
    TreeSet<TopicPartition> sorted = new TreeSet<>(ORDER);
    sorted.addAll(next.keySet());
    for (TopicPartition tp : sorted) {
      offsets.put(tp, new OffsetAndMetadata(next.get(tp)));
      logged.put(key(tp), next.get(tp));
    }
    String error = null;
    try {
      c.commitSync(offsets);
      committed.setAll(logged);
    } catch (CommitFailedException e) {
      error = "COMMIT_FAILED";  // the client refused or lost its generation; no Kafka error code
    } catch (KafkaException e) {
      error = Json.errorName(e);
    }
    ArrayNode ev = events.addArray().add("commit");
    ev.add(logged);
    ev.add(error);
  }

  private static String key(TopicPartition tp) {
    return tp.topic() + ":" + tp.partition();
  }

  private ArrayNode ownedJson() {
    ArrayNode out = Json.array();
    for (TopicPartition tp : owned) {
      out.addArray().add(tp.topic()).add(tp.partition());
    }
    return out;
  }

  private static ArrayNode partitionsJson(Collection<TopicPartition> tps) {
    ArrayNode out = Json.array();
    TreeSet<TopicPartition> sorted = new TreeSet<>(ORDER);
    sorted.addAll(tps);
    for (TopicPartition tp : sorted) {
      out.addArray().add(tp.topic()).add(tp.partition());
    }
    return out;
  }

  private static ObjectNode record(ConsumerRecord<byte[], byte[]> r) {
    ObjectNode o = Json.object();
    o.put("topic", r.topic());
    o.put("partition", r.partition());
    o.put("offset", r.offset());
    o.set("key", Json.bytes(r.key()));
    o.set("value", Json.bytes(r.value()));
    return o;
  }

  /** Keeps the owned set; logs the full assignment after every change a rebalance made. */
  private final class Listener implements ConsumerRebalanceListener {
    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      owned.removeAll(partitions);
      if (incremental && !partitions.isEmpty()) {
        logAssignment();
      }
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      owned.removeAll(partitions);
      if (closing) {
        return;
      }
      events.addArray().add("lost").add(partitionsJson(partitions));
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      owned.addAll(partitions);
      logAssignment();
    }

    private void logAssignment() {
      if (closing) {
        return;
      }
      ArrayNode now = ownedJson();
      assignments.add(now);
      events.addArray().add("assign").add(now.deepCopy());
      activeAt = System.currentTimeMillis();
    }
  }
}
