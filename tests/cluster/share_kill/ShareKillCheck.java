// A KafkaShareConsumer with explicit acknowledgement for tests/cluster/
// test_share_failover.py, run as a single source file against the Java
// driver's kafka-clients jars (as tests/clients/share_tls/ShareTlsCheck.java).
//
//   setup BOOTSTRAP GROUP: share.auto.offset.reset=earliest on the group (GROUP configs).
//   consume BOOTSTRAP GROUP TOPIC: polls until stdin closes; each poll's records are
//   ACCEPTed after a pause of 300 ms (so that records are in flight most of the time),
//   then committed (ShareAcknowledge). Lines:
//     {"d":[partition,offset,delivery]}             a delivery
//     {"a":[[offset,delivery],...],"p":P,"ok":B}    a commit's outcome for partition P
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.config.ConfigResource;

public class ShareKillCheck {
  public static void main(String[] argv) throws Exception {
    if (argv[0].equals("setup")) {
      Properties p = new Properties();
      p.put("bootstrap.servers", argv[1]);
      try (Admin a = Admin.create(p)) {
        ConfigResource r = new ConfigResource(ConfigResource.Type.GROUP, argv[2]);
        a.incrementalAlterConfigs(Map.of(r, List.of(new AlterConfigOp(
            new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET)))).all().get();
      }
      System.out.println("ok");
      return;
    }
    consume(argv[1], argv[2], argv[3]);
  }

  static void consume(String bootstrap, String group, String topic) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("group.id", group);
    p.put("key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
    p.put("value.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
    p.put("share.acknowledgement.mode", "explicit");
    p.put("max.poll.records", "50");
    AtomicBoolean stop = new AtomicBoolean();
    Thread stdin = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
        while (r.readLine() != null) {
          // closing stdin stops the consumer
        }
      } catch (Exception e) {
        // treated as closed
      }
      stop.set(true);
    });
    stdin.setDaemon(true);
    stdin.start();
    try (KafkaShareConsumer<String, String> c = new KafkaShareConsumer<>(p)) {
      c.subscribe(List.of(topic));
      while (!stop.get()) {
        ConsumerRecords<String, String> recs = c.poll(Duration.ofMillis(200));
        if (recs.isEmpty()) {
          continue;
        }
        Map<Integer, List<String>> acked = new HashMap<>();
        for (ConsumerRecord<String, String> r : recs) {
          short delivery = r.deliveryCount().orElse((short) -1);
          System.out.println(String.format("{\"d\":[%d,%d,%d]}", r.partition(), r.offset(), delivery));
          c.acknowledge(r, AcknowledgeType.ACCEPT);
          acked.computeIfAbsent(r.partition(), k -> new ArrayList<>())
              .add(String.format("[%d,%d]", r.offset(), delivery));
        }
        System.out.flush();
        Thread.sleep(300);
        Map<Integer, Boolean> ok = new HashMap<>();
        try {
          for (Map.Entry<TopicIdPartition, Optional<KafkaException>> e : c.commitSync().entrySet()) {
            ok.put(e.getKey().partition(), e.getValue().isEmpty());
          }
        } catch (Exception e) {
          // every acknowledgement of the poll is in doubt
        }
        for (Map.Entry<Integer, List<String>> e : acked.entrySet()) {
          System.out.println(String.format("{\"a\":[%s],\"p\":%d,\"ok\":%b}", String.join(",", e.getValue()),
              e.getKey(), ok.getOrDefault(e.getKey(), false)));
        }
        System.out.flush();
      }
    }
  }
}
