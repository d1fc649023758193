package ketch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.util.Iterator;
import java.util.Map;
import java.util.Properties;

/**
 * The Java (kafka-clients 4.3.1) driver of tests/clients/DRIVERS.md.
 *
 * <pre>driver --bootstrap HOST:PORT COMMAND '{json args}'</pre>
 *
 * Prints exactly one JSON object on stdout and exits 0 when the operation ran (per-item
 * Kafka errors are in the JSON); exits 2 on bad arguments and 1 when the driver itself
 * failed, with the reason on stderr.
 */
public final class Driver {
  /** Thrown for malformed command lines or JSON arguments (exit code 2). */
  static final class UsageError extends RuntimeException {
    UsageError(String message) {
      super(message);
    }
  }

  private Driver() {}

  /** The real stdout (System.out is routed to stderr): for commands that stream JSON lines. */
  private static PrintStream answerOut = System.out;

  static PrintStream answerStream() {
    return answerOut;
  }

  public static void main(String[] argv) {
    // stdout carries the JSON answer only; keep a handle on it and route stray prints to stderr.
    PrintStream out = System.out;
    answerOut = out;
    System.setOut(System.err);
    int code;
    try {
      JsonNode answer = run(argv);
      out.write(Json.MAPPER.writeValueAsBytes(answer));
      out.write('\n');
      out.flush();
      code = 0;
    } catch (UsageError e) {
      System.err.println("driver: " + e.getMessage());
      System.err.println("usage: driver --bootstrap HOST:PORT COMMAND '{json args}'");
      code = 2;
    } catch (Throwable e) {
      System.err.println("driver: failed: " + e);
      e.printStackTrace(System.err);
      code = 1;
    }
    System.err.flush();
    // Client threads must not keep the JVM alive past the answer.
    Runtime.getRuntime().halt(code);
  }

  static JsonNode run(String[] argv) throws Exception {
    String bootstrap = null;
    String command = null;
    String json = null;
    for (int i = 0; i < argv.length; i++) {
      String a = argv[i];
      if (a.equals("--bootstrap")) {
        if (++i >= argv.length) {
          throw new UsageError("--bootstrap needs a value");
        }
        bootstrap = argv[i];
      } else if (a.startsWith("--bootstrap=")) {
        bootstrap = a.substring("--bootstrap=".length());
      } else if (command == null) {
        command = a;
      } else if (json == null) {
        json = a;
      } else {
        throw new UsageError("unexpected argument: " + a);
      }
    }
    if (bootstrap == null || command == null) {
      throw new UsageError("need --bootstrap and a command");
    }
    JsonNode args;
    try {
      args = Json.MAPPER.readTree(json == null || json.isBlank() ? "{}" : json);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new UsageError("arguments are not JSON: " + e.getOriginalMessage());
    }
    if (!args.isObject()) {
      throw new UsageError("arguments must be a JSON object");
    }
    Properties config = baseConfig(bootstrap, args);
    ObjectNode a = (ObjectNode) args;
    switch (command) {
      case "create-topics":
        return AdminCommands.createTopics(config, a);
      case "describe-configs":
        return ConfigCommands.describeConfigs(config, a);
      case "alter-configs":
        return ConfigCommands.alterConfigs(config, a);
      case "incremental-alter-configs":
        return ConfigCommands.incrementalAlterConfigs(config, a);
      case "create-partitions":
        return ConfigCommands.createPartitions(config, a);
      case "list-topics":
        return AdminCommands.listTopics(config, a);
      case "describe-topics":
        return AdminCommands.describeTopics(config, a);
      case "delete-topics":
        return AdminCommands.deleteTopics(config, a);
      case "describe-cluster":
        return AdminCommands.describeCluster(config, a);
      case "describe-quorum":
        return QuorumCommands.describeQuorum(config, a);
      case "alter-replica-log-dirs":
        return QuorumCommands.alterReplicaLogDirs(config, a);
      case "list-offsets":
        return AdminCommands.listOffsets(config, a);
      case "produce":
        return ProduceCommand.run(config, a);
      case "produce-stream":
        return ProduceStream.run(config, a);
      case "produce-generated":
        return ProduceGenerated.run(config, a);
      case "consume":
        return ConsumeCommand.consume(config, a);
      case "offsets-for-times":
        return ConsumeCommand.offsetsForTimes(config, a);
      case "group-consume":
        return GroupConsumeCommand.run(config, a);
      case "describe-groups":
        return GroupAdminCommands.describeGroups(config, a);
      case "list-groups":
        return GroupAdminCommands.listGroups(config, a);
      case "committed-offsets":
        return GroupAdminCommands.committedOffsets(config, a);
      case "sr-roundtrip":
        return SchemaRegistryCommand.run(config, a);
      case "txn-produce":
        return TxnCommands.produce(config, a);
      case "txn-fence":
        return TxnCommands.fence(config, a);
      case "txn-transform":
        return TxnCommands.transform(config, a);
      case "create-acls":
        return AclCommands.create(config, a);
      case "describe-acls":
        return AclCommands.describe(config, a);
      case "delete-acls":
        return AclCommands.delete(config, a);
      case "create-token":
        return TokenCommands.create(config, a);
      case "renew-token":
        return TokenCommands.renewOrExpire(config, a, true);
      case "expire-token":
        return TokenCommands.renewOrExpire(config, a, false);
      case "describe-tokens":
        return TokenCommands.describe(config, a);
      case "alter-client-quotas":
        return QuotaCommands.alter(config, a);
      case "describe-client-quotas":
        return QuotaCommands.describe(config, a);
      case "cds-warmup":
        return Warmup.run(config, a);
      default:
        throw new UsageError("unknown command: " + command);
    }
  }

  /**
   * Settings shared by every client: the bootstrap and timeouts short enough that a dead
   * broker fails a command in seconds. Commands add their own with {@link #clientConfig}.
   */
  static Properties baseConfig(String bootstrap, JsonNode args) {
    JsonNode extra = args.get("config");
    if (extra != null && !extra.isNull() && !extra.isObject()) {
      throw new UsageError("\"config\" must be an object");
    }
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("client.id", "ketch-java-driver");
    p.put("request.timeout.ms", "10000");
    p.put("default.api.timeout.ms", "15000");
    p.put("socket.connection.setup.timeout.ms", "5000");
    p.put("socket.connection.setup.timeout.max.ms", "10000");
    return p;
  }

  /**
   * The configuration of one client: base, then the command's settings (key, value pairs),
   * then the caller's "config" object, which wins over both.
   */
  static Properties clientConfig(Properties base, JsonNode args, String... settings) {
    Properties p = new Properties();
    p.putAll(base);
    for (int i = 0; i + 1 < settings.length; i += 2) {
      p.put(settings[i], settings[i + 1]);
    }
    JsonNode extra = args.get("config");
    if (extra != null && extra.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = extra.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        JsonNode v = e.getValue();
        p.put(e.getKey(), v.isTextual() ? v.asText() : v.toString());
      }
    }
    return p;
  }
}
