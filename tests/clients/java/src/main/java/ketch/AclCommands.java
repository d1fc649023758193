package ketch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreateAclsResult;
import org.apache.kafka.clients.admin.DeleteAclsResult;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;

/** The ACL commands of DRIVERS.md: create-acls, describe-acls, delete-acls (Admin). */
final class AclCommands {
  private AclCommands() {}

  private static String name(JsonNode a, String key, String fallback) {
    return Json.stringArg(a, key, fallback);
  }

  private static AclBinding binding(JsonNode a) {
    return new AclBinding(
        new ResourcePattern(ResourceType.fromString(name(a, "resource_type", "UNKNOWN")), Json.stringArg(a, "name"),
            PatternType.fromString(name(a, "pattern", "LITERAL"))),
        new AccessControlEntry(Json.stringArg(a, "principal"), name(a, "host", "*"),
            AclOperation.fromString(name(a, "operation", "UNKNOWN")),
            AclPermissionType.fromString(name(a, "permission", "UNKNOWN"))));
  }

  private static AclBindingFilter filter(JsonNode f) {
    return new AclBindingFilter(
        new ResourcePatternFilter(ResourceType.fromString(name(f, "resource_type", "ANY")), name(f, "name", null),
            PatternType.fromString(name(f, "pattern", "ANY"))),
        new AccessControlEntryFilter(name(f, "principal", null), name(f, "host", null),
            AclOperation.fromString(name(f, "operation", "ANY")),
            AclPermissionType.fromString(name(f, "permission", "ANY"))));
  }

  private static ObjectNode json(AclBinding b) {
    ObjectNode o = Json.object();
    o.put("resource_type", b.pattern().resourceType().name());
    o.put("name", b.pattern().name());
    o.put("pattern", b.pattern().patternType().name());
    o.put("principal", b.entry().principal());
    o.put("host", b.entry().host());
    o.put("operation", b.entry().operation().name());
    o.put("permission", b.entry().permissionType().name());
    return o;
  }

  private static ArrayNode sorted(Collection<AclBinding> bindings) {
    List<ObjectNode> list = new ArrayList<>();
    for (AclBinding b : bindings) {
      list.add(json(b));
    }
    list.sort(Comparator.comparing(ObjectNode::toString));
    ArrayNode out = Json.array();
    list.forEach(out::add);
    return out;
  }

  private static JsonNode list(JsonNode args, String key) {
    JsonNode n = args.get(key);
    if (n == null || !n.isArray()) {
      throw new Driver.UsageError("\"" + key + "\" must be an array");
    }
    return n;
  }

  static ObjectNode create(Properties base, ObjectNode args) throws Exception {
    List<AclBinding> bindings = new ArrayList<>();
    for (JsonNode a : list(args, "acls")) {
      bindings.add(binding(a));
    }
    try (Admin admin = Admin.create(Driver.clientConfig(base, args))) {
      CreateAclsResult r = admin.createAcls(bindings);
      ArrayNode results = Json.array();
      for (AclBinding b : bindings) {
        results.addObject().put("error", AdminCommands.errorOf(r.values().get(b)));
      }
      ObjectNode root = Json.object();
      root.set("results", results);
      return root;
    }
  }

  static ObjectNode describe(Properties base, ObjectNode args) throws Exception {
    JsonNode f = args.get("filter");
    try (Admin admin = Admin.create(Driver.clientConfig(base, args))) {
      ObjectNode root = Json.object();
      try {
        root.set("acls", sorted(admin.describeAcls(filter(f == null ? Json.object() : f)).values().get()));
        root.putNull("error");
      } catch (ExecutionException e) {
        root.set("acls", Json.array());
        root.put("error", Json.errorName(e));
      }
      return root;
    }
  }

  static ObjectNode delete(Properties base, ObjectNode args) throws Exception {
    List<AclBindingFilter> filters = new ArrayList<>();
    for (JsonNode f : list(args, "filters")) {
      filters.add(filter(f));
    }
    try (Admin admin = Admin.create(Driver.clientConfig(base, args))) {
      DeleteAclsResult r = admin.deleteAcls(filters);
      ArrayNode results = Json.array();
      for (AclBindingFilter f : filters) {
        ObjectNode o = results.addObject();
        KafkaFuture<DeleteAclsResult.FilterResults> fut = r.values().get(f);
        try {
          List<AclBinding> deleted = new ArrayList<>();
          for (DeleteAclsResult.FilterResult fr : fut.get().values()) {
            deleted.add(fr.binding());
          }
          o.putNull("error");
          o.set("deleted", sorted(deleted));
        } catch (ExecutionException e) {
          o.put("error", Json.errorName(e));
          o.set("deleted", Json.array());
        }
      }
      ObjectNode root = Json.object();
      root.set("results", results);
      return root;
    }
  }
}
