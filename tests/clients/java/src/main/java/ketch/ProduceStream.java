package ketch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * produce-stream (DRIVERS.md): one long-lived KafkaProducer for a whole run. Records come
 * on stdin, one JSON object a line ({"key","value","partition"}), and are sent in that
 * order as they arrive; each send's outcome is printed on stdout as soon as the client
 * reports it, one JSON line: {"n":i,"partition":p,"offset":o,"error":null} (i: the input
 * line's index from 0). At the end of stdin the producer flushes, and the last line is the
 * answer: {"sent":n,"acked":a,"failed":f}. Lets a test record every acknowledgement while
 * the producer keeps running (tests/cluster/history.py).
 */
final class ProduceStream {
  private ProduceStream() {}

  static ObjectNode run(Properties base, ObjectNode args) throws Exception {
    String topic = Json.stringArg(args, "topic");
    Properties config = Driver.clientConfig(base, args,
        "acks", Json.stringArg(args, "acks", "all"),
        "enable.idempotence", Boolean.toString(Json.boolArg(args, "idempotent", true)),
        "linger.ms", "5",
        "delivery.timeout.ms", "120000",
        "key.serializer", ByteArraySerializer.class.getName(),
        "value.serializer", ByteArraySerializer.class.getName());
    PrintStream out = Driver.answerStream();
    AtomicLong acked = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    long n = 0;
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode r = Json.MAPPER.readTree(line);
        JsonNode p = r.get("partition");
        ProducerRecord<byte[], byte[]> rec = new ProducerRecord<>(topic,
            p == null || p.isNull() ? null : p.asInt(),
            Json.bytesArg(r.get("key"), "key"), Json.bytesArg(r.get("value"), "value"));
        final long index = n++;
        producer.send(rec, (md, e) -> {
          ObjectNode o = Json.object();
          o.put("n", index);
          o.put("partition", md != null ? md.partition() : rec.partition() == null ? -1 : rec.partition());
          o.put("offset", e == null && md.hasOffset() ? md.offset() : -1);
          if (e == null) {
            o.putNull("error");
            acked.incrementAndGet();
          } else {
            o.put("error", e instanceof KafkaException ? Errors.forException(e).name() : e.toString());
            failed.incrementAndGet();
          }
          print(out, o);
        });
      }
      producer.flush();
      producer.close(Duration.ofSeconds(5));
    }
    ObjectNode root = Json.object();
    root.put("sent", n);
    root.put("acked", acked.get());
    root.put("failed", failed.get());
    return root;
  }

  private static void print(PrintStream out, ObjectNode o) {
    try {
      byte[] b = Json.MAPPER.writeValueAsBytes(o);
      synchronized (out) {
        out.write(b);
        out.write('\n');
        out.flush();
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
