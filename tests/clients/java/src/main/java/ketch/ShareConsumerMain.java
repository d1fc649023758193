package ketch;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.clients.admin.ShareMemberDescription;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;

/**
 * A long-running KafkaShareConsumer for tests/clients/test_share_groups.py. Not part of the
 * one-answer driver protocol: it streams one JSON line per record it gets.
 *
 * <pre>
 * ShareConsumerMain setup BOOTSTRAP GROUP KEY=VALUE...   set the group's configs, print "ok"
 * ShareConsumerMain consume BOOTSTRAP GROUP TOPIC MODE     consume until stdin closes
 * ShareConsumerMain describe BOOTSTRAP GROUP               the group as Admin describes and lists it
 * ShareConsumerMain offsets BOOTSTRAP GROUP TOPIC          listShareGroupOffsets of partition 0
 * ShareConsumerMain alter BOOTSTRAP GROUP TOPIC OFFSET     alterShareGroupOffsets of partition 0
 * ShareConsumerMain delete-offsets BOOTSTRAP GROUP TOPIC   deleteShareGroupOffsets
 * ShareConsumerMain delete-group BOOTSTRAP GROUP TOPIC     deleteShareGroups (DeleteGroups)
 * (the last two print "ok" or the error's class)
 * </pre>
 *
 * MODE "ack": values starting "release-" are RELEASEd on their first delivery (ACCEPTed
 * after), "reject-" are REJECTed, the rest ACCEPTed; each poll's acknowledgements are
 * committed (ShareAcknowledge) before the next. MODE "hold": records are printed and never
 * acknowledged, and the consumer stops polling (its records stay acquired until their lock
 * runs out or the process dies). MODE "release-hold": every record of the first poll is
 * RELEASEd, the acknowledgements committed, and the consumer stops polling as in "hold". Lines: {"value":..,"offset":..,"partition":..,"delivery":..,
 * "ack":..}.
 */
public final class ShareConsumerMain {
  private ShareConsumerMain() {}

  public static void main(String[] argv) throws Exception {
    PrintStream out = System.out;
    System.setOut(System.err);
    if (argv[0].equals("setup")) {
      setup(argv[1], argv[2], List.of(argv).subList(3, argv.length));
      out.println("ok");
      out.flush();
      Runtime.getRuntime().halt(0);
    }
    if (argv[0].equals("offsets") || argv[0].equals("alter") || argv[0].equals("delete-offsets")
        || argv[0].equals("delete-group")) {
      out.println(offsets(argv));
      out.flush();
      Runtime.getRuntime().halt(0);
    }
    if (argv[0].equals("describe")) {
      out.println(describe(argv[1], argv[2]));
      out.flush();
      Runtime.getRuntime().halt(0);
    }
    consume(out, argv[1], argv[2], argv[3], argv[4]);
    Runtime.getRuntime().halt(0);
  }

  static void setup(String bootstrap, String group, List<String> settings) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    try (Admin admin = Admin.create(p)) {
      List<AlterConfigOp> ops = new ArrayList<>();
      for (String s : settings) {
        String[] kv = s.split("=", 2);
        ops.add(new AlterConfigOp(new ConfigEntry(kv[0], kv[1]), AlterConfigOp.OpType.SET));
      }
      ConfigResource r = new ConfigResource(ConfigResource.Type.GROUP, group);
      admin.incrementalAlterConfigs(Map.of(r, ops)).all().get();
    }
  }

  static String offsets(String[] argv) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", argv[1]);
    String group = argv[2];
    TopicPartition tp = new TopicPartition(argv[3], 0);
    try (Admin admin = Admin.create(p)) {
      if (argv[0].equals("offsets")) {
        ListShareGroupOffsetsSpec spec = new ListShareGroupOffsetsSpec().topicPartitions(List.of(tp));
        SharePartitionOffsetInfo info =
            admin.listShareGroupOffsets(Map.of(group, spec)).partitionsToOffsetInfo(group).get().get(tp);
        if (info == null) {
          return "{\"start\":null}";
        }
        return String.format("{\"start\":%d,\"lag\":%d}", info.startOffset(), info.lag().orElse(-1L));
      }
      try {
        if (argv[0].equals("alter")) {
          admin.alterShareGroupOffsets(group, Map.of(tp, Long.parseLong(argv[4]))).all().get();
        } else if (argv[0].equals("delete-group")) {
          admin.deleteShareGroups(List.of(group)).all().get();
        } else {
          admin.deleteShareGroupOffsets(group, Set.of(argv[3])).all().get();
        }
        return "ok";
      } catch (java.util.concurrent.ExecutionException e) {
        return e.getCause().getClass().getSimpleName();
      }
    }
  }

  /** describeShareGroups and listGroups(type share) as one JSON object. */
  static String describe(String bootstrap, String group) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    try (Admin admin = Admin.create(p)) {
      ShareGroupDescription d = admin.describeShareGroups(List.of(group)).all().get().get(group);
      StringBuilder b = new StringBuilder("{\"state\":\"" + d.groupState() + "\",\"members\":[");
      String sep = "";
      for (ShareMemberDescription m : d.members()) {
        b.append(sep).append("{\"id\":\"").append(m.consumerId()).append("\",\"partitions\":[");
        String sep2 = "";
        for (TopicPartition tp : m.assignment().topicPartitions()) {
          b.append(sep2).append("\"").append(tp).append("\"");
          sep2 = ",";
        }
        b.append("]}");
        sep = ",";
      }
      b.append("],\"listed\":[");
      sep = "";
      for (GroupListing l : admin.listGroups(new ListGroupsOptions().withTypes(Set.of(GroupType.SHARE))).all().get()) {
        b.append(sep).append(String.format("{\"id\":\"%s\",\"type\":\"%s\",\"state\":\"%s\"}", l.groupId(),
            l.type().map(Object::toString).orElse(""), l.groupState().map(Object::toString).orElse("")));
        sep = ",";
      }
      return b.append("]}").toString();
    }
  }

  static void consume(PrintStream out, String bootstrap, String group, String topic, String mode) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("group.id", group);
    p.put("key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
    p.put("value.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
    p.put("share.acknowledgement.mode", "explicit");
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
      line(out, "{\"event\":\"subscribed\"}");
      boolean holding = false;
      while (!stop.get()) {
        if (holding) {
          sleep(50);
          continue;
        }
        ConsumerRecords<String, String> recs = c.poll(Duration.ofMillis(200));
        for (ConsumerRecord<String, String> r : recs) {
          short delivery = r.deliveryCount().orElse((short) -1);
          AcknowledgeType t = decide(mode, r.value(), delivery);
          if (t != null) {
            c.acknowledge(r, t);
          }
          line(out, String.format("{\"value\":\"%s\",\"offset\":%d,\"partition\":%d,\"delivery\":%d,\"ack\":\"%s\"}",
              r.value(), r.offset(), r.partition(), delivery, t == null ? "NONE" : t.name()));
        }
        if (recs.isEmpty()) {
          continue;
        }
        if (!mode.equals("hold")) {
          c.commitSync();
          line(out, "{\"event\":\"committed\"}");
        }
        if (!mode.equals("ack")) {
          holding = true;
          line(out, "{\"event\":\"holding\"}");
        }
      }
    }
    line(out, "{\"event\":\"closed\"}");
  }

  static AcknowledgeType decide(String mode, String value, short delivery) {
    if (mode.equals("hold")) {
      return null;
    }
    if (mode.equals("release-hold")) {
      return AcknowledgeType.RELEASE;
    }
    if (value.startsWith("reject-")) {
      return AcknowledgeType.REJECT;
    }
    if (value.startsWith("release-") && delivery == 1) {
      return AcknowledgeType.RELEASE;
    }
    return AcknowledgeType.ACCEPT;
  }

  static void line(PrintStream out, String s) {
    synchronized (out) {
      out.println(s);
      out.flush();
    }
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
