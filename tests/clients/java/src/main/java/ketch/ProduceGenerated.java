package ketch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * produce-generated (DRIVERS.md): a bulk load too large for the argument string. Record i
 * has key "k(i mod key_count)" and value "v(i)" padded with 'x' to value_size, or null (a
 * tombstone) when its round i / key_count is listed and (i mod key_count) % modulo == 0.
 * Sent in order with acks=all; "config" overrides (e.g. enable.idempotence) apply.
 */
final class ProduceGenerated {
  private ProduceGenerated() {}

  static ObjectNode run(Properties base, ObjectNode args) throws Exception {
    String topic = Json.stringArg(args, "topic");
    int partition = (int) Json.longArg(args, "partition", 0);
    long count = Json.longArg(args, "count", 0);
    long keys = Math.max(1, Json.longArg(args, "key_count", 1));
    int size = (int) Json.longArg(args, "value_size", 0);
    long modulo = Json.longArg(args, "tombstone_modulo", 0);
    Set<Long> rounds = new HashSet<>();
    JsonNode r = args.get("tombstone_rounds");
    if (r != null && r.isArray()) {
      for (JsonNode n : r) {
        rounds.add(n.asLong());
      }
    }
    Properties config = Driver.clientConfig(base, args,
        "acks", "all",
        "enable.idempotence", "false",
        "max.in.flight.requests.per.connection", "1",
        "linger.ms", "5",
        "compression.type", Json.stringArg(args, "compression", "none"),
        "key.serializer", ByteArraySerializer.class.getName(),
        "value.serializer", ByteArraySerializer.class.getName());
    long[] offsets = new long[(int) count];
    Map<String, Integer> errors = new TreeMap<>();
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
      for (long i = 0; i < count; i++) {
        long k = i % keys;
        boolean tomb = modulo > 0 && rounds.contains(i / keys) && k % modulo == 0;
        byte[] value = null;
        if (!tomb) {
          StringBuilder v = new StringBuilder("v").append(i);
          while (v.length() < size) {
            v.append('x');
          }
          value = v.toString().getBytes(StandardCharsets.UTF_8);
        }
        final int index = (int) i;
        producer.send(new ProducerRecord<>(topic, partition, ("k" + k).getBytes(StandardCharsets.UTF_8), value),
            (md, e) -> {
              if (e != null) {
                synchronized (errors) {
                  errors.merge(e.getClass().getSimpleName(), 1, Integer::sum);
                }
                offsets[index] = -1;
              } else {
                offsets[index] = md.offset();
              }
            });
      }
      producer.flush();
      producer.close(Duration.ofSeconds(5));
    }
    ObjectNode root = Json.object();
    root.put("count", count);
    ObjectNode errs = root.putObject("errors");
    errors.forEach(errs::put);
    long first = count > 0 ? offsets[0] : -1;
    boolean dense = true;
    for (int i = 0; i < count; i++) {
      dense &= offsets[i] == first + i;
    }
    root.put("first_offset", first);
    root.put("last_offset", count > 0 ? offsets[(int) count - 1] : -1);
    root.put("dense", dense);
    return root;
  }
}
