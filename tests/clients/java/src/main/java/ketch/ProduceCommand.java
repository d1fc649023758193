package ketch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** produce: sends every record with one KafkaProducer, then reports each send's outcome. */
final class ProduceCommand {
  private ProduceCommand() {}

  static ObjectNode run(Properties base, ObjectNode args) throws Exception {
    String topic = Json.stringArg(args, "topic");
    String acks = acks(args.get("acks"));
    String compression = Json.stringArg(args, "compression", "none");
    boolean idempotent = Json.boolArg(args, "idempotent", false);
    JsonNode records = args.get("records");
    if (records == null || !records.isArray()) {
      throw new Driver.UsageError("\"records\" must be an array");
    }
    List<ProducerRecord<byte[], byte[]>> toSend = new ArrayList<>();
    for (JsonNode r : records) {
      toSend.add(record(topic, r));
    }

    Properties config = Driver.clientConfig(base, args,
        "acks", acks,
        "compression.type", compression,
        "enable.idempotence", Boolean.toString(idempotent),
        "max.block.ms", "10000",
        "delivery.timeout.ms", "15000",
        "key.serializer", ByteArraySerializer.class.getName(),
        "value.serializer", ByteArraySerializer.class.getName());
    KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config);
    ArrayNode out = Json.array();
    long elapsedMs = -1;
    try {
      List<Future<RecordMetadata>> sent = new ArrayList<>();
      if (args.path("warm_metadata").asBoolean(false)) {
        producer.partitionsFor(topic);  // metadata first: elapsed_ms times the sends only
      }
      long started = System.nanoTime();
      for (ProducerRecord<byte[], byte[]> r : toSend) {
        sent.add(producer.send(r));
      }
      producer.flush();
      elapsedMs = (System.nanoTime() - started) / 1_000_000;
      for (int i = 0; i < sent.size(); i++) {
        ObjectNode o = out.addObject();
        try {
          RecordMetadata md = sent.get(i).get();
          o.put("partition", md.partition());
          o.put("offset", md.hasOffset() ? md.offset() : -1);
          o.put("timestamp", md.hasTimestamp() ? md.timestamp() : -1);
          o.putNull("error");
        } catch (ExecutionException e) {
          Integer p = toSend.get(i).partition();
          o.put("partition", p == null ? -1 : p);
          o.put("offset", -1);
          o.put("timestamp", -1);
          o.put("error", Json.errorName(e));
        }
      }
    } finally {
      producer.close(Duration.ofSeconds(5));
    }
    ObjectNode root = Json.object();
    root.set("records", out);
    root.put("elapsed_ms", elapsedMs);
    return root;
  }

  /** "all", "-1", "0", "1" (string or number) as the producer's acks setting. */
  private static String acks(JsonNode n) {
    if (n == null || n.isNull()) {
      return "all";
    }
    String s = n.isIntegralNumber() ? Long.toString(n.asLong()) : n.asText();
    if (!s.equals("all") && !s.equals("-1") && !s.equals("0") && !s.equals("1")) {
      throw new Driver.UsageError("\"acks\" must be all, -1, 0 or 1");
    }
    return s;
  }

  private static ProducerRecord<byte[], byte[]> record(String topic, JsonNode r) {
    if (!r.isObject()) {
      throw new Driver.UsageError("each record must be an object");
    }
    JsonNode partition = r.get("partition");
    JsonNode timestamp = r.get("timestamp");
    RecordHeaders headers = new RecordHeaders();
    JsonNode hs = r.get("headers");
    if (hs != null && !hs.isNull()) {
      for (JsonNode h : hs) {
        if (!h.isArray() || h.size() != 2 || !h.get(0).isTextual()) {
          throw new Driver.UsageError("a header must be [name, base64-or-null]");
        }
        headers.add(h.get(0).asText(), Json.bytesArg(h.get(1), "header value"));
      }
    }
    return new ProducerRecord<>(topic,
        partition == null || partition.isNull() ? null : partition.asInt(),
        timestamp == null || timestamp.isNull() ? null : timestamp.asLong(),
        Json.bytesArg(r.get("key"), "key"),
        Json.bytesArg(r.get("value"), "value"),
        headers);
  }
}
