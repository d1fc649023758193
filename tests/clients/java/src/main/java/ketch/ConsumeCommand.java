package ketch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** consume and offsets-for-times: a KafkaConsumer with assign() and no group. */
final class ConsumeCommand {
  private static final long DEFAULT_TIMEOUT_MS = 10_000;

  private ConsumeCommand() {}

  private static KafkaConsumer<byte[], byte[]> consumer(Properties base, JsonNode args) {
    Properties config = Driver.clientConfig(base, args,
        "enable.auto.commit", "false",
        "isolation.level", Json.stringArg(args, "isolation_level", "read_uncommitted"),
        "key.deserializer", ByteArrayDeserializer.class.getName(),
        "value.deserializer", ByteArrayDeserializer.class.getName());
    return new KafkaConsumer<>(config);
  }

  /**
   * Reads from the chosen start until max_records records arrived or timeout_ms passed.
   * A Kafka error that stops the read is reported as "error" next to the records read so far.
   */
  static ObjectNode consume(Properties base, ObjectNode args) throws Exception {
    String topic = Json.stringArg(args, "topic");
    List<Integer> partitions = Json.intListOrNull(args, "partitions");
    long max = Json.longArg(args, "max_records", Long.MAX_VALUE);
    long timeoutMs = Json.longArg(args, "timeout_ms", DEFAULT_TIMEOUT_MS);
    JsonNode from = args.get("from");

    ArrayNode out = Json.array();
    ObjectNode root = Json.object();
    root.set("records", out);
    KafkaConsumer<byte[], byte[]> c = consumer(base, args);
    try {
      List<TopicPartition> tps = new ArrayList<>();
      if (partitions == null) {
        List<PartitionInfo> infos = c.partitionsFor(topic);
        for (PartitionInfo p : infos == null ? List.<PartitionInfo>of() : infos) {
          tps.add(new TopicPartition(topic, p.partition()));
        }
        tps.sort((x, y) -> Integer.compare(x.partition(), y.partition()));
      } else {
        for (int p : partitions) {
          tps.add(new TopicPartition(topic, p));
        }
      }
      if (tps.isEmpty() || max <= 0) {
        return root;
      }
      c.assign(tps);
      seek(c, tps, from);
      // timeout_ms bounds the reading; finding the partitions above has the API timeout.
      long deadline = System.currentTimeMillis() + timeoutMs;
      long count = 0;
      while (count < max) {
        long left = deadline - System.currentTimeMillis();
        if (left <= 0) {
          break;
        }
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(Math.min(left, 200)))) {
          if (count >= max) {
            break;
          }
          out.add(record(r));
          count++;
        }
      }
    } catch (KafkaException e) {
      root.put("error", Json.errorName(e));
    } finally {
      c.close(Duration.ofSeconds(5));
    }
    return root;
  }

  private static void seek(KafkaConsumer<byte[], byte[]> c, List<TopicPartition> tps, JsonNode from) {
    if (from == null || from.isNull() || (from.isTextual() && from.asText().equals("beginning"))) {
      c.seekToBeginning(tps);
    } else if (from.isTextual() && from.asText().equals("end")) {
      c.seekToEnd(tps);
    } else if (from.isObject() && from.has("offset")) {
      long offset = Json.longArg(from, "offset", 0);
      for (TopicPartition tp : tps) {
        c.seek(tp, offset);
      }
    } else if (from.isObject() && from.has("timestamp")) {
      long ts = Json.longArg(from, "timestamp", 0);
      Map<TopicPartition, Long> query = new LinkedHashMap<>();
      for (TopicPartition tp : tps) {
        query.put(tp, ts);
      }
      Map<TopicPartition, OffsetAndTimestamp> found = c.offsetsForTimes(query);
      List<TopicPartition> none = new ArrayList<>();
      for (TopicPartition tp : tps) {
        OffsetAndTimestamp o = found.get(tp);
        if (o == null) {
          none.add(tp);  // nothing at or after ts: start at the end, as a consumer would
        } else {
          c.seek(tp, o.offset());
        }
      }
      if (!none.isEmpty()) {
        c.seekToEnd(none);
      }
    } else {
      throw new Driver.UsageError("\"from\" must be \"beginning\", \"end\", {\"offset\":N} or {\"timestamp\":ms}");
    }
  }

  private static ObjectNode record(ConsumerRecord<byte[], byte[]> r) {
    ObjectNode o = Json.object();
    o.put("partition", r.partition());
    o.put("offset", r.offset());
    o.set("key", Json.bytes(r.key()));
    o.set("value", Json.bytes(r.value()));
    ArrayNode hs = o.putArray("headers");
    for (Header h : r.headers()) {
      ArrayNode pair = hs.addArray();
      pair.add(h.key());
      pair.add(Json.bytes(h.value()));
    }
    o.put("timestamp", r.timestamp());
    o.put("timestamp_type", r.timestampType().name);
    return o;
  }

  /** {"offsets":{"0":{"offset":N,"timestamp":ms} or null}}: the earliest offset at or after each time. */
  static ObjectNode offsetsForTimes(Properties base, ObjectNode args) throws Exception {
    String topic = Json.stringArg(args, "topic");
    JsonNode stamps = args.get("timestamps");
    if (stamps == null || !stamps.isObject()) {
      throw new Driver.UsageError("\"timestamps\" must be an object {\"partition\": ms}");
    }
    Map<TopicPartition, Long> query = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = stamps.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      int p;
      try {
        p = Integer.parseInt(e.getKey());
      } catch (NumberFormatException ex) {
        throw new Driver.UsageError("partition keys must be integers: " + e.getKey());
      }
      if (!e.getValue().isIntegralNumber()) {
        throw new Driver.UsageError("timestamps must be integers");
      }
      query.put(new TopicPartition(topic, p), e.getValue().asLong());
    }
    ObjectNode root = Json.object();
    ObjectNode offsets = root.putObject("offsets");
    KafkaConsumer<byte[], byte[]> c = consumer(base, args);
    try {
      Map<TopicPartition, OffsetAndTimestamp> found = c.offsetsForTimes(query);
      for (TopicPartition tp : query.keySet()) {
        OffsetAndTimestamp o = found.get(tp);
        String key = Integer.toString(tp.partition());
        if (o == null) {
          offsets.putNull(key);
        } else {
          ObjectNode v = offsets.putObject(key);
          v.put("offset", o.offset());
          v.put("timestamp", o.timestamp());
        }
      }
    } catch (KafkaException e) {
      root.put("error", Json.errorName(e));
    } finally {
      c.close(Duration.ofSeconds(5));
    }
    return root;
  }
}
