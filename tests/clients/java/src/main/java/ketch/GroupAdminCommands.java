package ketch;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ClassicGroupDescription;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;

/** The consumer-group AdminClient commands: describe-groups, list-groups, committed-offsets. */
final class GroupAdminCommands {
  private GroupAdminCommands() {}

  private static Admin admin(Properties base, ObjectNode args) {
    return Admin.create(Driver.clientConfig(base, args));
  }

  /**
   * describeConsumerGroups gives state, type, assignor and members of either group type;
   * describeClassicGroups (DescribeGroups) adds the protocol type of a classic group.
   */
  static ObjectNode describeGroups(Properties base, ObjectNode args) throws Exception {
    List<String> names = Json.stringList(args, "groups");
    Admin a = admin(base, args);
    try {
      Map<String, KafkaFuture<ConsumerGroupDescription>> described = a.describeConsumerGroups(names).describedGroups();
      Map<String, KafkaFuture<ClassicGroupDescription>> classic = a.describeClassicGroups(names).describedGroups();
      ArrayNode out = Json.array();
      for (String name : names) {
        ObjectNode g = out.addObject();
        g.put("group_id", name);
        String protocolType = null;
        try {
          protocolType = classic.get(name).get().protocol();
        } catch (ExecutionException e) {
          // not a classic group (or no group): the protocol type is unknown
        }
        try {
          ConsumerGroupDescription d = described.get(name).get();
          g.putNull("error");
          g.put("state", d.groupState().toString());
          g.put("type", d.type().name().toLowerCase());
          g.put("protocol_type", protocolType);
          g.put("protocol", d.partitionAssignor());
          ArrayNode members = g.putArray("members");
          List<MemberDescription> sorted = new ArrayList<>(d.members());
          sorted.sort(Comparator.comparing(MemberDescription::consumerId));
          for (MemberDescription m : sorted) {
            ObjectNode mo = members.addObject();
            mo.put("member_id", m.consumerId());
            mo.put("instance_id", m.groupInstanceId().orElse(null));
            mo.put("client_id", m.clientId());
            mo.put("host", m.host());
            List<TopicPartition> tps = new ArrayList<>(m.assignment().topicPartitions());
            tps.sort(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
            ArrayNode assignment = mo.putArray("assignment");
            for (TopicPartition tp : tps) {
              assignment.addArray().add(tp.topic()).add(tp.partition());
            }
          }
        } catch (ExecutionException e) {
          g.put("error", Json.errorName(e));
          g.putNull("state");
          g.putNull("type");
          g.put("protocol_type", protocolType);
          g.putNull("protocol");
          g.putArray("members");
        }
      }
      ObjectNode root = Json.object();
      root.set("groups", out);
      return root;
    } finally {
      a.close(Duration.ofSeconds(5));
    }
  }

  /** Every group of every type (ListGroups), sorted by id. */
  static ObjectNode listGroups(Properties base, ObjectNode args) throws Exception {
    Admin a = admin(base, args);
    try {
      List<GroupListing> listed = new ArrayList<>(a.listGroups().all().get());
      listed.sort(Comparator.comparing(GroupListing::groupId));
      ArrayNode out = Json.array();
      for (GroupListing l : listed) {
        ObjectNode g = out.addObject();
        g.put("group_id", l.groupId());
        g.put("state", l.groupState().map(Object::toString).orElse(null));
        g.put("type", l.type().map(t -> t.name().toLowerCase()).orElse(null));
        g.put("protocol_type", l.protocol());
      }
      ObjectNode root = Json.object();
      root.set("groups", out);
      return root;
    } finally {
      a.close(Duration.ofSeconds(5));
    }
  }

  /** {"offsets":{"p":N}}: the group's committed offset per partition, -1 where it has none. */
  static ObjectNode committedOffsets(Properties base, ObjectNode args) throws Exception {
    String group = Json.stringArg(args, "group");
    String topic = Json.stringArg(args, "topic");
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
      List<TopicPartition> tps = new ArrayList<>();
      for (int p : partitions) {
        tps.add(new TopicPartition(topic, p));
      }
      Map<String, ListConsumerGroupOffsetsSpec> spec = new LinkedHashMap<>();
      spec.put(group, new ListConsumerGroupOffsetsSpec().topicPartitions(tps));
      Map<TopicPartition, OffsetAndMetadata> got =
          a.listConsumerGroupOffsets(spec).partitionsToOffsetAndMetadata(group).get();
      ObjectNode offsets = Json.object();
      for (TopicPartition tp : tps) {
        OffsetAndMetadata o = got.get(tp);
        offsets.put(Integer.toString(tp.partition()), o == null ? -1 : o.offset());
      }
      ObjectNode root = Json.object();
      root.set("offsets", offsets);
      return root;
    } finally {
      a.close(Duration.ofSeconds(5));
    }
  }
}
