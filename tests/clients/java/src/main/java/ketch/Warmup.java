package ketch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The {@code cds-warmup} command: builds and closes an admin client, a producer and a
 * consumer without waiting for any broker, so that build.sh can record the classes they
 * load in a class-data-sharing archive (target/driver.jsa). Every later driver run maps
 * that archive instead of loading and verifying those classes again (about half of the
 * driver's start-up).
 */
final class Warmup {
  private Warmup() {}

  static JsonNode run(Properties base, ObjectNode args) {
    Admin.create(Driver.clientConfig(base, args)).close(Duration.ZERO);
    new KafkaProducer<byte[], byte[]>(Driver.clientConfig(base, args,
        "key.serializer", ByteArraySerializer.class.getName(),
        "value.serializer", ByteArraySerializer.class.getName())).close(Duration.ZERO);
    new KafkaConsumer<byte[], byte[]>(Driver.clientConfig(base, args,
        "group.id", "cds-warmup",
        "key.deserializer", ByteArrayDeserializer.class.getName(),
        "value.deserializer", ByteArrayDeserializer.class.getName())).close(Duration.ZERO);
    return Json.MAPPER.createObjectNode().putNull("error");
  }
}
