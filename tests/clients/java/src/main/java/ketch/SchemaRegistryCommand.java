package ketch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * sr-roundtrip: the schema registry's REST API from Java's own HTTP client (no
 * registry library): register a JSON Schema for {@code <topic>-value}, frame each
 * record as Confluent's serializers do (magic byte 0, the 4-byte id, the JSON),
 * produce with kafka-clients, consume back, and decode each frame by looking
 * its id up (GET /schemas/ids/{id}).
 *
 * <p>args: {"registry", "topic", "schema", "records": [...]}; out: {"id", "records", "schema_types"}.
 */
final class SchemaRegistryCommand {
  private SchemaRegistryCommand() {}

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final String CT = "application/vnd.schemaregistry.v1+json";

  static ObjectNode run(Properties base, ObjectNode args) throws Exception {
    String registry = Json.stringArg(args, "registry");
    String topic = Json.stringArg(args, "topic");
    String schema = Json.stringArg(args, "schema");
    HttpClient http = HttpClient.newHttpClient();
    ObjectNode body = Json.object();
    body.put("schemaType", "JSON");
    body.put("schema", schema);
    JsonNode registered = call(http, HttpRequest.newBuilder(URI.create(registry + "/subjects/" + topic + "-value/versions"))
        .header("Content-Type", CT).POST(HttpRequest.BodyPublishers.ofString(MAPPER.writeValueAsString(body))));
    int id = registered.get("id").asInt();

    Properties pc = Driver.clientConfig(base, args, "acks", "all",
        "key.serializer", ByteArraySerializer.class.getName(), "value.serializer", ByteArraySerializer.class.getName());
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(pc)) {
      for (JsonNode r : args.get("records")) {
        byte[] payload = MAPPER.writeValueAsBytes(r);
        ByteBuffer frame = ByteBuffer.allocate(5 + payload.length).put((byte) 0).putInt(id).put(payload);
        producer.send(new ProducerRecord<>(topic, 0, null, frame.array())).get();
      }
    }
    Properties cc = Driver.clientConfig(base, args, "key.deserializer", ByteArrayDeserializer.class.getName(),
        "value.deserializer", ByteArrayDeserializer.class.getName(), "enable.auto.commit", "false");
    ArrayNode out = Json.array();
    ArrayNode types = Json.array();
    int want = args.get("records").size();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(cc)) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long deadline = System.currentTimeMillis() + 30000;
      while (out.size() < want && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<byte[], byte[]> rec : consumer.poll(Duration.ofMillis(500))) {
          ByteBuffer frame = ByteBuffer.wrap(rec.value());
          if (frame.get() != 0) {
            throw new IllegalStateException("not a Confluent frame");
          }
          int frameId = frame.getInt();
          JsonNode s = call(http, HttpRequest.newBuilder(URI.create(registry + "/schemas/ids/" + frameId)).GET());
          types.add(s.path("schemaType").asText("AVRO"));
          byte[] payload = new byte[frame.remaining()];
          frame.get(payload);
          out.add(MAPPER.readTree(payload));
        }
      }
    }
    ObjectNode root = Json.object();
    root.put("id", id);
    root.set("records", out);
    root.set("schema_types", types);
    return root;
  }

  private static JsonNode call(HttpClient http, HttpRequest.Builder req) throws Exception {
    HttpResponse<String> r = http.send(req.header("Accept", CT).build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException("registry answered " + r.statusCode() + ": " + r.body());
    }
    return MAPPER.readTree(r.body());
  }
}
