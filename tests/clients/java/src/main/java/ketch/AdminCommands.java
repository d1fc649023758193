package ketch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TopicListing;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/** The AdminClient commands: topics, cluster and list-offsets. */
final class AdminCommands {
  private AdminCommands() {}

  private static Admin admin(Properties base, JsonNode args) {
    return Admin.create(Driver.clientConfig(base, args));
  }

  private static void close(Admin a) {
    a.close(Duration.ofSeconds(5));
  }

  /** Per-name results in input order: {"name":..., "error": name-or-null}. */
  private static ObjectNode results(List<String> names, Map<String, KafkaFuture<Void>> futures) throws Exception {
    ArrayNode out = Json.array();
    for (String name : names) {
      ObjectNode r = out.addObject();
      r.put("name", name);
      r.put("error", errorOf(futures.get(name)));
    }
    ObjectNode root = Json.object();
    root.set("results", out);
    return root;
  }

  /** null when the future succeeded, else Kafka's error name. */
  static String errorOf(Future<?> f) throws Exception {
    try {
      f.get();
      return null;
    } catch (ExecutionException e) {
      return Json.errorName(e);
    }
  }

  static ObjectNode createTopics(Properties base, ObjectNode args) throws Exception {
    JsonNode topics = args.get("topics");
    if (topics == null || !topics.isArray()) {
      throw new Driver.UsageError("\"topics\" must be an array");
    }
    List<NewTopic> newTopics = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (JsonNode t : topics) {
      String name = Json.stringArg(t, "name");
      long partitions = Json.longArg(t, "partitions", -1);
      long rf = Json.longArg(t, "replication_factor", -1);
      NewTopic nt = new NewTopic(name,
          partitions == -1 ? Optional.empty() : Optional.of((int) partitions),
          rf == -1 ? Optional.empty() : Optional.of((short) rf));
      JsonNode configs = t.get("configs");
      if (configs != null && !configs.isNull()) {
        Map<String, String> c = new HashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = configs.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> e = it.next();
          c.put(e.getKey(), e.getValue().isNull() ? null : e.getValue().asText());
        }
        nt.configs(c);
      }
      newTopics.add(nt);
      names.add(name);
    }
    boolean validateOnly = Json.boolArg(args, "validate_only", false);
    Admin a = admin(base, args);
    try {
      Map<String, KafkaFuture<Void>> futures =
          a.createTopics(newTopics, new CreateTopicsOptions().validateOnly(validateOnly)).values();
      return results(names, futures);
    } finally {
      close(a);
    }
  }

  static ObjectNode deleteTopics(Properties base, ObjectNode args) throws Exception {
    List<String> names = Json.stringList(args, "topics");
    Admin a = admin(base, args);
    try {
      return results(names, a.deleteTopics(names).topicNameValues());
    } finally {
      close(a);
    }
  }

  static ObjectNode listTopics(Properties base, ObjectNode args) throws Exception {
    Admin a = admin(base, args);
    try {
      List<String> names = new ArrayList<>();
      for (TopicListing l : a.listTopics().listings().get()) {
        names.add(l.name());
      }
      Map<String, KafkaFuture<TopicDescription>> described = a.describeTopics(names).topicNameValues();
      ObjectNode topics = Json.object();
      for (String name : new TreeMap<>(described).keySet()) {
        try {
          topics.put(name, described.get(name).get().partitions().size());
        } catch (ExecutionException e) {
          // Deleted between the listing and the describe: not a topic any more.
          if (!(Json.unwrap(e) instanceof UnknownTopicOrPartitionException)) {
            throw e;
          }
        }
      }
      ObjectNode root = Json.object();
      root.set("topics", topics);
      return root;
    } finally {
      close(a);
    }
  }

  static ObjectNode describeTopics(Properties base, ObjectNode args) throws Exception {
    List<String> names = Json.stringList(args, "topics");
    Admin a = admin(base, args);
    try {
      Map<String, KafkaFuture<TopicDescription>> described = a.describeTopics(names).topicNameValues();
      ArrayNode out = Json.array();
      for (String name : names) {
        ObjectNode t = out.addObject();
        t.put("name", name);
        ArrayNode parts = Json.array();
        try {
          TopicDescription d = described.get(name).get();
          t.putNull("error");
          List<TopicPartitionInfo> infos = new ArrayList<>(d.partitions());
          infos.sort(Comparator.comparingInt(TopicPartitionInfo::partition));
          for (TopicPartitionInfo p : infos) {
            ObjectNode pn = parts.addObject();
            pn.put("partition", p.partition());
            pn.put("leader", p.leader() == null ? -1 : p.leader().id());
            ArrayNode replicas = pn.putArray("replicas");
            p.replicas().forEach(n -> replicas.add(n.id()));
            ArrayNode isr = pn.putArray("isr");
            p.isr().forEach(n -> isr.add(n.id()));
          }
        } catch (ExecutionException e) {
          t.put("error", Json.errorName(e));
        }
        t.set("partitions", parts);
      }
      ObjectNode root = Json.object();
      root.set("topics", out);
      return root;
    } finally {
      close(a);
    }
  }

  static ObjectNode describeCluster(Properties base, ObjectNode args) throws Exception {
    Admin a = admin(base, args);
    try {
      DescribeClusterResult r = a.describeCluster();
      ObjectNode root = Json.object();
      root.put("cluster_id", r.clusterId().get());
      Node controller = r.controller().get();
      root.put("controller", controller == null ? -1 : controller.id());
      List<Node> nodes = new ArrayList<>(r.nodes().get());
      nodes.sort(Comparator.comparingInt(Node::id));
      ArrayNode brokers = root.putArray("brokers");
      for (Node n : nodes) {
        ObjectNode b = brokers.addObject();
        b.put("id", n.id());
        b.put("host", n.host());
        b.put("port", n.port());
      }
      return root;
    } finally {
      close(a);
    }
  }

  private static OffsetSpec offsetSpec(JsonNode spec) {
    if (spec != null && spec.isObject() && spec.has("timestamp")) {
      return OffsetSpec.forTimestamp(Json.longArg(spec, "timestamp", 0));
    }
    String s = spec == null || spec.isNull() ? "latest" : spec.asText();
    switch (s) {
      case "earliest":
        return OffsetSpec.earliest();
      case "latest":
        return OffsetSpec.latest();
      case "max_timestamp":
        return OffsetSpec.maxTimestamp();
      default:
        throw new Driver.UsageError("\"spec\" must be earliest, latest, max_timestamp or {\"timestamp\":ms}");
    }
  }

  /**
   * {"offsets":{"0":N}}; a partition the broker answered with an error has a null offset and
   * its error name under "errors" (present only then).
   */
  static ObjectNode listOffsets(Properties base, ObjectNode args) throws Exception {
    String topic = Json.stringArg(args, "topic");
    OffsetSpec spec = offsetSpec(args.get("spec"));
    List<Integer> partitions = Json.intListOrNull(args, "partitions");
    Admin a = admin(base, args);
    try {
      if (partitions == null) {
        partitions = new ArrayList<>();
        for (TopicPartitionInfo p : a.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions()) {
          partitions.add(p.partition());
        }
        partitions.sort(null);
      }
      Map<TopicPartition, OffsetSpec> request = new LinkedHashMap<>();
      for (int p : partitions) {
        request.put(new TopicPartition(topic, p), spec);
      }
      ListOffsetsResult r = a.listOffsets(request);
      ObjectNode offsets = Json.object();
      ObjectNode errors = Json.object();
      for (TopicPartition tp : request.keySet()) {
        String key = Integer.toString(tp.partition());
        try {
          offsets.put(key, r.partitionResult(tp).get().offset());
        } catch (ExecutionException e) {
          offsets.putNull(key);
          errors.put(key, Json.errorName(e));
        }
      }
      ObjectNode root = Json.object();
      root.set("offsets", offsets);
      if (!errors.isEmpty()) {
        root.set("errors", errors);
      }
      return root;
    } finally {
      close(a);
    }
  }
}
