package ketch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.protocol.Errors;

/** JSON argument reading, base64 bytes and Kafka error names for the driver. */
final class Json {
  static final ObjectMapper MAPPER = new ObjectMapper();

  private Json() {}

  static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  static ArrayNode array() {
    return MAPPER.createArrayNode();
  }

  /** base64 text, or JSON null for null bytes. */
  static JsonNode bytes(byte[] b) {
    return b == null ? MAPPER.nullNode() : MAPPER.getNodeFactory().textNode(Base64.getEncoder().encodeToString(b));
  }

  /** Decodes a base64 string argument; null or JSON null gives null. */
  static byte[] bytesArg(JsonNode n, String what) {
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.isTextual()) {
      throw new Driver.UsageError(what + " must be a base64 string or null");
    }
    try {
      return Base64.getDecoder().decode(n.asText());
    } catch (IllegalArgumentException e) {
      throw new Driver.UsageError(what + " is not base64: " + e.getMessage());
    }
  }

  static String stringArg(JsonNode args, String key) {
    JsonNode n = args.get(key);
    if (n == null || !n.isTextual()) {
      throw new Driver.UsageError("\"" + key + "\" must be a string");
    }
    return n.asText();
  }

  /** An optional string argument; fallback when absent or null. */
  static String stringArg(JsonNode args, String key, String fallback) {
    JsonNode n = args.get(key);
    if (n == null || n.isNull()) {
      return fallback;
    }
    if (!n.isTextual()) {
      throw new Driver.UsageError("\"" + key + "\" must be a string");
    }
    return n.asText();
  }

  /** An optional integral argument; fallback when absent or null. */
  static long longArg(JsonNode args, String key, long fallback) {
    JsonNode n = args.get(key);
    if (n == null || n.isNull()) {
      return fallback;
    }
    if (!n.canConvertToLong() || !n.isIntegralNumber()) {
      throw new Driver.UsageError("\"" + key + "\" must be an integer");
    }
    return n.asLong();
  }

  static boolean boolArg(JsonNode args, String key, boolean fallback) {
    JsonNode n = args.get(key);
    if (n == null || n.isNull()) {
      return fallback;
    }
    if (!n.isBoolean()) {
      throw new Driver.UsageError("\"" + key + "\" must be true or false");
    }
    return n.asBoolean();
  }

  static List<String> stringList(JsonNode args, String key) {
    JsonNode n = args.get(key);
    if (n == null || !n.isArray()) {
      throw new Driver.UsageError("\"" + key + "\" must be an array of strings");
    }
    List<String> out = new ArrayList<>();
    for (JsonNode e : n) {
      if (!e.isTextual()) {
        throw new Driver.UsageError("\"" + key + "\" must be an array of strings");
      }
      out.add(e.asText());
    }
    return out;
  }

  /** An optional array of integers; null when absent or JSON null. */
  static List<Integer> intListOrNull(JsonNode args, String key) {
    JsonNode n = args.get(key);
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.isArray()) {
      throw new Driver.UsageError("\"" + key + "\" must be an array of integers or null");
    }
    List<Integer> out = new ArrayList<>();
    for (JsonNode e : n) {
      if (!e.isIntegralNumber()) {
        throw new Driver.UsageError("\"" + key + "\" must be an array of integers or null");
      }
      out.add(e.asInt());
    }
    return out;
  }

  /** The exception a future failed with, without ExecutionException/CompletionException wrappers. */
  static Throwable unwrap(Throwable e) {
    while ((e instanceof ExecutionException || e instanceof CompletionException) && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  /**
   * Kafka's name for the error behind e (Errors enum, e.g. "TOPIC_ALREADY_EXISTS"), as
   * Errors.forException gives it: a client-side KafkaException that is no ApiException
   * (e.g. "part of a batch which had invalid records") is UNKNOWN_SERVER_ERROR.
   * Anything that is not a KafkaException is the driver's own failure and is rethrown.
   */
  static String errorName(Throwable e) throws Exception {
    Throwable cause = unwrap(e);
    if (cause instanceof KafkaException) {
      return Errors.forException(cause).name();
    }
    if (cause instanceof Exception) {
      throw (Exception) cause;
    }
    throw new RuntimeException(cause);
  }
}
