package ketch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterClientQuotasOptions;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.apache.kafka.common.quota.ClientQuotaFilterComponent;

/**
 * The client quota commands of DRIVERS.md (Admin.alterClientQuotas, Admin.describeClientQuotas):
 * alter-client-quotas, describe-client-quotas. An entity is a JSON object of entity type to
 * name, a null name being the type's default entity.
 */
final class QuotaCommands {
  private QuotaCommands() {}

  private static ClientQuotaEntity entity(JsonNode o) {
    if (o == null || !o.isObject()) {
      throw new Driver.UsageError("\"entity\" must be an object of entity type to name");
    }
    Map<String, String> parts = new HashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      parts.put(e.getKey(), e.getValue().isNull() ? null : e.getValue().asText());
    }
    return new ClientQuotaEntity(parts);
  }

  private static ObjectNode json(ClientQuotaEntity e) {
    ObjectNode o = Json.object();
    new TreeMap<>(e.entries()).forEach(o::put);
    return o;
  }

  /** {"entries":[{"entity":{..},"ops":{"key":value or null (removed)}}],"validate_only":false}. */
  static ObjectNode alter(Properties base, ObjectNode args) throws Exception {
    List<ClientQuotaAlteration> alterations = new ArrayList<>();
    JsonNode entries = args.get("entries");
    if (entries == null || !entries.isArray()) {
      throw new Driver.UsageError("\"entries\" must be an array");
    }
    for (JsonNode entry : entries) {
      List<ClientQuotaAlteration.Op> ops = new ArrayList<>();
      JsonNode given = entry.get("ops");
      if (given != null && given.isObject()) {
        for (Iterator<Map.Entry<String, JsonNode>> it = given.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> op = it.next();
          JsonNode v = op.getValue();
          ops.add(new ClientQuotaAlteration.Op(op.getKey(), v.isNull() ? null : v.asDouble()));
        }
      }
      alterations.add(new ClientQuotaAlteration(entity(entry.get("entity")), ops));
    }
    AlterClientQuotasOptions opts =
        new AlterClientQuotasOptions().validateOnly(Json.boolArg(args, "validate_only", false));
    try (Admin admin = Admin.create(Driver.clientConfig(base, args))) {
      Map<ClientQuotaEntity, KafkaFuture<Void>> futures = admin.alterClientQuotas(alterations, opts).values();
      ObjectNode root = Json.object();
      ArrayNode results = root.putArray("results");
      for (ClientQuotaAlteration a : alterations) {  // in input order
        ObjectNode r = results.addObject();
        r.set("entity", json(a.entity()));
        try {
          futures.get(a.entity()).get();
          r.putNull("error");
        } catch (ExecutionException e) {
          r.put("error", Json.errorName(e));
        }
      }
      return root;
    }
  }

  private static ClientQuotaFilterComponent component(JsonNode c) {
    String type = Json.stringArg(c, "entity_type");
    String match = Json.stringArg(c, "match_type", "exact");
    switch (match) {
      case "exact":
        return ClientQuotaFilterComponent.ofEntity(type, Json.stringArg(c, "match"));
      case "default":
        return ClientQuotaFilterComponent.ofDefaultEntity(type);
      case "any":
        return ClientQuotaFilterComponent.ofEntityType(type);
      default:
        throw new Driver.UsageError("match_type must be exact, default or any");
    }
  }

  /**
   * {"components":[{"entity_type":"user","match_type":"exact"/"default"/"any","match":"alice"}],
   * "strict":false}: {"error":null,"entries":[{"entity":{..},"values":{"key":value}}]} sorted by
   * entity.
   */
  static ObjectNode describe(Properties base, ObjectNode args) throws Exception {
    List<ClientQuotaFilterComponent> components = new ArrayList<>();
    JsonNode given = args.get("components");
    if (given != null && given.isArray()) {
      for (JsonNode c : given) {
        components.add(component(c));
      }
    }
    ClientQuotaFilter filter = Json.boolArg(args, "strict", false)
        ? ClientQuotaFilter.containsOnly(components) : ClientQuotaFilter.contains(components);
    try (Admin admin = Admin.create(Driver.clientConfig(base, args))) {
      ObjectNode root = Json.object();
      ArrayNode out = Json.array();
      try {
        Map<ClientQuotaEntity, Map<String, Double>> found = admin.describeClientQuotas(filter).entities().get();
        TreeMap<String, ObjectNode> sorted = new TreeMap<>();
        for (Map.Entry<ClientQuotaEntity, Map<String, Double>> e : found.entrySet()) {
          ObjectNode row = Json.object();
          row.set("entity", json(e.getKey()));
          ObjectNode values = row.putObject("values");
          new TreeMap<>(e.getValue()).forEach(values::put);
          sorted.put(row.get("entity").toString(), row);
        }
        sorted.values().forEach(out::add);
        root.putNull("error");
      } catch (ExecutionException e) {
        root.put("error", Json.errorName(e));
      }
      root.set("entries", out);
      return root;
    }
  }
}
