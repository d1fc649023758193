package ketch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.AlterConfigsOptions;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreatePartitionsOptions;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.common.config.ConfigResource;

/** describe-configs, alter-configs, incremental-alter-configs, create-partitions. */
final class ConfigCommands {
  private ConfigCommands() {}

  private static ConfigResource resource(JsonNode args) {
    String type = Json.stringArg(args, "resource", "topic");
    ConfigResource.Type t =
        type.equals("topic") ? ConfigResource.Type.TOPIC
            : type.equals("group") ? ConfigResource.Type.GROUP : ConfigResource.Type.BROKER;
    return new ConfigResource(t, Json.stringArg(args, "name"));
  }

  /** The protocol's ConfigSource name (the Admin API calls GROUP_CONFIG DYNAMIC_GROUP_CONFIG). */
  private static String sourceName(ConfigEntry.ConfigSource s) {
    switch (s) {
      case DYNAMIC_GROUP_CONFIG: return "GROUP_CONFIG";
      case DYNAMIC_CLIENT_METRICS_CONFIG: return "CLIENT_METRICS_CONFIG";
      default: return s.name();
    }
  }

  private static ObjectNode error(String name) {
    ObjectNode root = Json.object();
    root.put("error", name);
    return root;
  }

  static ObjectNode describeConfigs(Properties base, ObjectNode args) throws Exception {
    boolean synonyms = Json.boolArg(args, "synonyms", false);
    List<String> keys = args.hasNonNull("keys") ? Json.stringList(args, "keys") : null;
    ConfigResource r = resource(args);
    try (Admin a = Admin.create(Driver.clientConfig(base, args))) {
      Config config;
      try {
        config = a.describeConfigs(List.of(r), new DescribeConfigsOptions().includeSynonyms(synonyms))
            .all().get().get(r);
      } catch (ExecutionException e) {
        ObjectNode root = error(Json.errorName(e));
        root.set("configs", Json.object());
        return root;
      }
      ObjectNode configs = Json.object();
      for (ConfigEntry e : config.entries()) {
        if (keys != null && !keys.contains(e.name())) continue;
        ObjectNode c = configs.putObject(e.name());
        c.put("value", e.value());
        c.put("source", sourceName(e.source()));
        c.put("read_only", e.isReadOnly());
        c.put("sensitive", e.isSensitive());
        if (synonyms) {
          ArrayNode s = c.putArray("synonyms");
          for (ConfigEntry.ConfigSynonym syn : e.synonyms()) {
            ArrayNode one = s.addArray();
            one.add(syn.name());
            one.add(syn.value());
            one.add(sourceName(syn.source()));
          }
        }
      }
      ObjectNode root = error(null);
      root.set("configs", configs);
      return root;
    }
  }

  /** Kafka 4.x's Admin has no legacy alterConfigs (removed in 4.0). */
  static ObjectNode alterConfigs(Properties base, ObjectNode args) {
    ObjectNode root = Json.object();
    root.put("unsupported", "the Kafka 4.x Java Admin has no legacy alterConfigs");
    return root;
  }

  static ObjectNode incrementalAlterConfigs(Properties base, ObjectNode args) throws Exception {
    ConfigResource r = resource(args);
    Collection<AlterConfigOp> ops = new ArrayList<>();
    for (JsonNode o : args.get("ops")) {
      String value = o.hasNonNull("value") ? o.get("value").asText() : null;
      ops.add(new AlterConfigOp(new ConfigEntry(Json.stringArg(o, "key"), value),
          AlterConfigOp.OpType.valueOf(Json.stringArg(o, "op"))));
    }
    try (Admin a = Admin.create(Driver.clientConfig(base, args))) {
      AlterConfigsOptions o = new AlterConfigsOptions().validateOnly(Json.boolArg(args, "validate_only", false));
      return error(AdminCommands.errorOf(a.incrementalAlterConfigs(Map.of(r, ops), o).all()));
    }
  }

  static ObjectNode createPartitions(Properties base, ObjectNode args) throws Exception {
    String topic = Json.stringArg(args, "topic");
    int count = (int) Json.longArg(args, "count", -1);
    try (Admin a = Admin.create(Driver.clientConfig(base, args))) {
      CreatePartitionsOptions o = new CreatePartitionsOptions().validateOnly(Json.boolArg(args, "validate_only", false));
      return error(AdminCommands.errorOf(
          a.createPartitions(Map.of(topic, NewPartitions.increaseTo(count)), o).all()));
    }
  }

}
