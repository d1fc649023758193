package ketch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** txn-produce, txn-fence, txn-transform: the transactional KafkaProducer (DRIVERS.md). */
final class TxnCommands {
  private TxnCommands() {}

  private static KafkaProducer<byte[], byte[]> producer(Properties base, ObjectNode args, String id) {
    return new KafkaProducer<>(Driver.clientConfig(base, args,
        "transactional.id", id,
        "max.block.ms", "30000",
        "delivery.timeout.ms", "30000",
        "key.serializer", ByteArraySerializer.class.getName(),
        "value.serializer", ByteArraySerializer.class.getName()));
  }

  private static ProducerRecord<byte[], byte[]> record(JsonNode r) {
    JsonNode p = r.get("partition");
    return new ProducerRecord<>(Json.stringArg(r, "topic"), p == null || p.isNull() ? null : p.asInt(),
        Json.bytesArg(r.get("key"), "key"), Json.bytesArg(r.get("value"), "value"));
  }

  /** Sends and waits for every record; a failed send throws. */
  private static void send(KafkaProducer<byte[], byte[]> p, JsonNode records) throws Exception {
    List<java.util.concurrent.Future<?>> sent = new java.util.ArrayList<>();
    for (JsonNode r : records) {
      sent.add(p.send(record(r)));
    }
    p.flush();
    for (java.util.concurrent.Future<?> f : sent) {
      f.get();
    }
  }

  static ObjectNode produce(Properties base, ObjectNode args) throws Exception {
    KafkaProducer<byte[], byte[]> p = producer(base, args, Json.stringArg(args, "transactional_id"));
    ArrayNode out = Json.array();
    try {
      p.initTransactions();
      for (JsonNode t : args.get("transactions")) {
        ObjectNode o = out.addObject();
        try {
          p.beginTransaction();
          send(p, t.get("records"));
          if (Json.boolArg(t, "commit", true)) {
            p.commitTransaction();
          } else {
            p.abortTransaction();
          }
          o.putNull("error");
        } catch (ProducerFencedException e) {
          o.put("error", Json.errorName(e));
          break;
        } catch (Exception e) {
          o.put("error", Json.errorName(e));
          try {
            p.abortTransaction();
          } catch (KafkaException fatal) {
            break;
          }
        }
      }
    } finally {
      p.close(Duration.ofSeconds(5));
    }
    ObjectNode root = Json.object();
    root.set("transactions", out);
    return root;
  }

  static ObjectNode fence(Properties base, ObjectNode args) throws Exception {
    String id = Json.stringArg(args, "transactional_id");
    ObjectNode rec = Json.object();
    rec.put("topic", Json.stringArg(args, "topic"));
    rec.put("partition", 0);
    rec.put("value", java.util.Base64.getEncoder().encodeToString("fenced".getBytes()));
    ArrayNode one = Json.array();
    one.add(rec);
    ArrayNode two = Json.array();
    two.add(rec.deepCopy().put("value", java.util.Base64.getEncoder().encodeToString("second".getBytes())));
    KafkaProducer<byte[], byte[]> first = producer(base, args, id);
    KafkaProducer<byte[], byte[]> second = producer(base, args, id);
    ObjectNode root = Json.object();
    try {
      first.initTransactions();
      first.beginTransaction();
      send(first, one);
      second.initTransactions();
      try {
        first.commitTransaction();
        root.putNull("first_error");
      } catch (Exception e) {
        root.put("first_error", Json.errorName(e));
      }
      try {
        second.beginTransaction();
        send(second, two);
        second.commitTransaction();
        root.putNull("second_error");
      } catch (Exception e) {
        root.put("second_error", Json.errorName(e));
      }
    } finally {
      first.close(Duration.ZERO);
      second.close(Duration.ofSeconds(5));
    }
    return root;
  }

  static ObjectNode transform(Properties base, ObjectNode args) throws Exception {
    String input = Json.stringArg(args, "input");
    String output = Json.stringArg(args, "output");
    long want = Json.longArg(args, "max_records", Long.MAX_VALUE);
    long deadline = System.currentTimeMillis() + Json.longArg(args, "timeout_ms", 60000);
    long idleMs = Json.longArg(args, "idle_ms", 5000);
    KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(Driver.clientConfig(base, args,
        "group.id", Json.stringArg(args, "group"),
        "enable.auto.commit", "false",
        "auto.offset.reset", "earliest",
        "isolation.level", "read_committed",
        "max.poll.records", Long.toString(Json.longArg(args, "batch", 50)),
        "key.deserializer", ByteArrayDeserializer.class.getName(),
        "value.deserializer", ByteArrayDeserializer.class.getName()));
    KafkaProducer<byte[], byte[]> p = producer(base, args, Json.stringArg(args, "transactional_id"));
    long processed = 0;
    long txns = 0;
    ObjectNode root = Json.object();
    try {
      p.initTransactions();
      c.subscribe(List.of(input));
      long last = System.currentTimeMillis();
      while (processed < want && System.currentTimeMillis() < deadline
          && System.currentTimeMillis() - last < idleMs) {
        ConsumerRecords<byte[], byte[]> recs = c.poll(Duration.ofMillis(500));
        if (recs.isEmpty()) {
          continue;
        }
        last = System.currentTimeMillis();
        p.beginTransaction();
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : recs) {
          p.send(new ProducerRecord<>(output, r.partition(), r.key(), r.value()));
          offsets.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
        }
        p.sendOffsetsToTransaction(offsets, c.groupMetadata());
        p.commitTransaction();
        processed += recs.count();
        txns++;
      }
      root.putNull("error");
    } catch (Exception e) {
      root.put("error", Json.errorName(e));
    } finally {
      c.close(Duration.ofSeconds(5));
      p.close(Duration.ofSeconds(5));
    }
    root.put("processed", processed);
    root.put("transactions", txns);
    return root;
  }
}
