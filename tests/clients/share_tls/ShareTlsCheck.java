// ShareFetch over TLS with the Java clients 4.3.1 (tests/clients/test_share_groups_tls.py):
// a KafkaProducer writes COUNT records of varied sizes (each value names its index and
// is derived from it) in batches of many records; a KafkaShareConsumer reads them with
// max.poll.records below a batch's size and RELEASEs every 7th record on its first
// delivery, so answers carry whole batches, batches cut by the acquired ranges and
// redelivered records from the middle of batches. Checks every value against the one
// its index gives (the client checks each batch's CRC too) and prints one JSON line.
// Run as a single-file program: java -cp 'target/lib/*' ShareTlsCheck.java BOOTSTRAP
// TOPIC GROUP CLIENT_PROPERTIES COUNT.
import java.io.FileReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;

public class ShareTlsCheck {
  // Index i's value: "i:" then 100 + (i * 37) % 1900 characters derived from i.
  static String value(int i) {
    StringBuilder b = new StringBuilder(i + ":");
    int n = 100 + (i * 37) % 1900;
    long x = i * 2654435761L + 1;
    for (int k = 0; k < n; k++) {
      x = x * 6364136223846793005L + 1442695040888963407L;
      b.append((char) ('a' + (int) ((x >>> 33) % 26)));
    }
    return b.toString();
  }

  public static void main(String[] argv) throws Exception {
    String bootstrap = argv[0], topic = argv[1], group = argv[2];
    int count = Integer.parseInt(argv[4]);
    Properties security = new Properties();
    try (FileReader r = new FileReader(argv[3], StandardCharsets.UTF_8)) {
      security.load(r);
    }
    Properties a = new Properties();
    a.putAll(security);
    a.put("bootstrap.servers", bootstrap);
    try (Admin admin = Admin.create(a)) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
      ConfigResource g = new ConfigResource(ConfigResource.Type.GROUP, group);
      admin.incrementalAlterConfigs(Map.of(g, List.of(new AlterConfigOp(
          new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET)))).all().get();
    }
    Properties p = new Properties();
    p.putAll(security);
    p.put("bootstrap.servers", bootstrap);
    p.put("key.serializer", "org.apache.kafka.common.serialization.StringSerializer");
    p.put("value.serializer", "org.apache.kafka.common.serialization.StringSerializer");
    p.put("batch.size", "262144");
    p.put("linger.ms", "50");
    p.put("compression.type", "none");
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      for (int i = 0; i < count; i++) {
        producer.send(new ProducerRecord<>(topic, 0, null, value(i)));
      }
      producer.flush();
    }
    Properties c = new Properties();
    c.putAll(security);
    c.put("bootstrap.servers", bootstrap);
    c.put("group.id", group);
    c.put("key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
    c.put("value.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
    c.put("share.acknowledgement.mode", "explicit");
    c.put("max.poll.records", "100");
    Map<Integer, Integer> accepted = new HashMap<>();
    int delivered = 0, wrong = 0, released = 0;
    long deadline = System.currentTimeMillis() + 120_000;
    try (KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(c)) {
      consumer.subscribe(Set.of(topic));
      while (accepted.size() < count && System.currentTimeMillis() < deadline) {
        ConsumerRecords<String, String> recs = consumer.poll(Duration.ofMillis(500));
        for (ConsumerRecord<String, String> r : recs) {
          delivered++;
          String v = r.value();
          int i = Integer.parseInt(v.substring(0, v.indexOf(':')));
          if (i != r.offset() || !v.equals(value(i))) {
            wrong++;
          }
          if (i % 7 == 0 && r.deliveryCount().orElse((short) 0) == 1) {
            consumer.acknowledge(r, AcknowledgeType.RELEASE);
            released++;
          } else {
            consumer.acknowledge(r, AcknowledgeType.ACCEPT);
            accepted.merge(i, 1, Integer::sum);
          }
        }
        if (!recs.isEmpty()) {
          consumer.commitSync();
        }
      }
    }
    int twice = 0;
    for (int n : accepted.values()) {
      twice += n > 1 ? 1 : 0;
    }
    System.out.printf("{\"accepted\":%d,\"accepted_twice\":%d,\"delivered\":%d,\"released\":%d,\"wrong\":%d}%n",
        accepted.size(), twice, delivered, released, wrong);
    System.out.flush();
    Runtime.getRuntime().halt(0);
  }
}
