package ketch;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.StreamsGroupDescription;
import org.apache.kafka.clients.admin.StreamsGroupMemberAssignment;
import org.apache.kafka.clients.admin.StreamsGroupMemberDescription;
import org.apache.kafka.clients.admin.StreamsGroupSubtopologyDescription;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.Stores;

/**
 * A Kafka Streams 4.3.1 word count with group.protocol=streams (KIP-1071) for
 * tests/clients/test_streams_groups.py. Not part of the one-answer driver protocol.
 *
 * <pre>
 * StreamsAppMain run BOOTSTRAP APP_ID INPUT OUTPUT STATE_DIR   run until stdin closes
 * StreamsAppMain describe BOOTSTRAP APP_ID                     Admin.describeStreamsGroups + listGroups
 * </pre>
 *
 * The topology: lines of INPUT split into words, re-keyed by word (a repartition topic),
 * counted in an in-memory store (a changelog topic), the counts written to OUTPUT;
 * exactly_once_v2. "run" prints {"state":..} at each state change and {"active":[..]} (its
 * active task ids) whenever they change.
 */
public final class StreamsAppMain {
  private StreamsAppMain() {}

  public static void main(String[] argv) throws Exception {
    PrintStream out = System.out;
    System.setOut(System.err);
    if (argv[0].equals("run")) {
      run(out, argv[1], argv[2], argv[3], argv[4], argv[5]);
    } else if (argv[0].equals("describe")) {
      describe(out, argv[1], argv[2]);
    } else {
      throw new IllegalArgumentException(argv[0]);
    }
  }

  private static void run(PrintStream out, String bootstrap, String appId, String input, String output,
                          String stateDir) throws Exception {
    StreamsBuilder builder = new StreamsBuilder();
    builder.<String, String>stream(input)
        .flatMapValues(line -> Arrays.asList(line.toLowerCase(Locale.ROOT).split("\\W+")))
        .filter((k, word) -> !word.isEmpty())
        .groupBy((k, word) -> word, Grouped.with(Serdes.String(), Serdes.String()))
        .count(Materialized.as(Stores.inMemoryKeyValueStore("counts")))
        .toStream()
        .to(output, Produced.with(Serdes.String(), Serdes.Long()));
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, "streams");
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 200);
    p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
    KafkaStreams streams = new KafkaStreams(builder.build(), p);
    streams.setStateListener((now, before) -> println(out, "{\"state\":\"" + now + "\"}"));
    streams.setUncaughtExceptionHandler(e -> {
      e.printStackTrace();
      println(out, "{\"error\":" + quote(String.valueOf(e)) + "}");
      return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse
          .SHUTDOWN_CLIENT;
    });
    streams.start();
    Thread watcher = new Thread(() -> {
      Set<String> last = null;
      while (!Thread.currentThread().isInterrupted()) {
        Set<String> active = new TreeSet<>();
        try {
          for (ThreadMetadata t : streams.metadataForLocalThreads())
            for (TaskMetadata task : t.activeTasks()) active.add(task.taskId().toString());
        } catch (RuntimeException e) {
          // not running
        }
        if (!active.equals(last)) {
          List<String> quoted = new ArrayList<>();
          for (String a : active) quoted.add(quote(a));
          println(out, "{\"active\":[" + String.join(",", quoted) + "]}");
          last = active;
        }
        try {
          Thread.sleep(100);
        } catch (InterruptedException e) {
          return;
        }
      }
    });
    watcher.setDaemon(true);
    watcher.start();
    while (System.in.read() != -1) {
      // until stdin closes
    }
    watcher.interrupt();
    streams.close(Duration.ofSeconds(30));
    println(out, "{\"closed\":true}");
  }

  private static String quote(String s) {
    try {
      return Json.MAPPER.writeValueAsString(s);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static synchronized void println(PrintStream out, String line) {
    out.println(line);
    out.flush();
  }

  private static String tasks(List<StreamsGroupMemberAssignment.TaskIds> ids) {
    List<String> parts = new ArrayList<>();
    for (StreamsGroupMemberAssignment.TaskIds t : ids)
      for (int partition : t.partitions()) parts.add(quote(t.subtopologyId() + "_" + partition));
    return "[" + String.join(",", parts) + "]";
  }

  private static void describe(PrintStream out, String bootstrap, String appId) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    try (Admin admin = Admin.create(p)) {
      StreamsGroupDescription d = admin.describeStreamsGroups(List.of(appId)).all().get().get(appId);
      Map<String, String> types = new TreeMap<>();
      for (GroupListing g : admin.listGroups(new ListGroupsOptions().withTypes(Set.of(GroupType.STREAMS)))
          .all().get())
        types.put(g.groupId(), g.type().map(Object::toString).orElse("") + "/" + g.groupState().map(Object::toString).orElse(""));
      StringBuilder s = new StringBuilder();
      s.append("{\"state\":").append(quote(d.groupState().toString()));
      s.append(",\"group_epoch\":").append(d.groupEpoch());
      s.append(",\"listed\":").append(quote(types.getOrDefault(appId, "")));
      s.append(",\"subtopologies\":[");
      List<String> subs = new ArrayList<>();
      for (StreamsGroupSubtopologyDescription st : d.subtopologies()) subs.add(quote(st.subtopologyId()));
      s.append(String.join(",", subs)).append("],\"members\":[");
      List<String> members = new ArrayList<>();
      for (StreamsGroupMemberDescription m : d.members())
        members.add("{\"member_id\":" + quote(m.memberId()) + ",\"process_id\":" + quote(m.processId())
            + ",\"epoch\":" + m.memberEpoch() + ",\"active\":" + tasks(m.assignment().activeTasks())
            + ",\"standby\":" + tasks(m.assignment().standbyTasks()) + "}");
      s.append(String.join(",", members)).append("]}");
      out.println(s);
    }
  }
}
