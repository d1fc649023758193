package ketch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.QuorumInfo;
import org.apache.kafka.clients.admin.RaftVoterEndpoint;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartitionReplica;

/** The KRaft quorum and log-directory admin commands: describe-quorum, alter-replica-log-dirs. */
final class QuorumCommands {
  private QuorumCommands() {}

  private static Admin admin(Properties base, JsonNode args) {
    return Admin.create(Driver.clientConfig(base, args));
  }

  private static ObjectNode replica(QuorumInfo.ReplicaState r) {
    ObjectNode o = Json.object();
    o.put("id", r.replicaId());
    o.put("directory_id", r.replicaDirectoryId().toString());
    o.put("log_end_offset", r.logEndOffset());
    o.put("last_fetch_timestamp", r.lastFetchTimestamp().orElse(-1L));
    o.put("last_caught_up_timestamp", r.lastCaughtUpTimestamp().orElse(-1L));
    return o;
  }

  /** Admin.describeMetadataQuorum: {"error":null,"leader_id","leader_epoch","high_watermark","voters":[...],
   * "observers":[...],"nodes":{"1":[{"name","host","port"}]}} or {"error":"NAME"}. */
  static ObjectNode describeQuorum(Properties base, ObjectNode args) throws Exception {
    Admin a = admin(base, args);
    try {
      ObjectNode root = Json.object();
      QuorumInfo q;
      try {
        q = a.describeMetadataQuorum().quorumInfo().get();
      } catch (ExecutionException e) {
        root.put("error", Json.errorName(e));
        return root;
      }
      root.putNull("error");
      root.put("leader_id", q.leaderId());
      root.put("leader_epoch", q.leaderEpoch());
      root.put("high_watermark", q.highWatermark());
      ArrayNode voters = root.putArray("voters");
      for (QuorumInfo.ReplicaState r : q.voters()) voters.add(replica(r));
      ArrayNode observers = root.putArray("observers");
      for (QuorumInfo.ReplicaState r : q.observers()) observers.add(replica(r));
      ObjectNode nodes = root.putObject("nodes");
      for (Map.Entry<Integer, QuorumInfo.Node> n : q.nodes().entrySet()) {
        ArrayNode eps = nodes.putArray(String.valueOf(n.getKey()));
        for (RaftVoterEndpoint ep : n.getValue().endpoints()) {
          ObjectNode e = eps.addObject();
          e.put("name", ep.name());
          e.put("host", ep.host());
          e.put("port", ep.port());
        }
      }
      return root;
    } finally {
      a.close(Duration.ofSeconds(5));
    }
  }

  /** Admin.alterReplicaLogDirs: args {"broker":1,"moves":[{"topic":"t","partition":0,"dir":"/path"}]};
   * answers {"results":[{"topic","partition","error"}]} in input order. */
  static ObjectNode alterReplicaLogDirs(Properties base, ObjectNode args) throws Exception {
    Admin a = admin(base, args);
    try {
      int broker = args.path("broker").asInt(1);
      Map<TopicPartitionReplica, String> moves = new LinkedHashMap<>();
      for (JsonNode m : args.path("moves")) {
        moves.put(new TopicPartitionReplica(m.path("topic").asText(), m.path("partition").asInt(), broker),
            m.path("dir").asText());
      }
      Map<TopicPartitionReplica, KafkaFuture<Void>> futures = a.alterReplicaLogDirs(moves).values();
      ArrayNode out = Json.array();
      for (TopicPartitionReplica r : moves.keySet()) {
        ObjectNode o = out.addObject();
        o.put("topic", r.topic());
        o.put("partition", r.partition());
        o.put("error", AdminCommands.errorOf(futures.get(r)));
      }
      ObjectNode root = Json.object();
      root.set("results", out);
      return root;
    } finally {
      a.close(Duration.ofSeconds(5));
    }
  }
}
