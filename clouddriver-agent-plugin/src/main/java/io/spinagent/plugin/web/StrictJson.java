package io.spinagent.plugin.web;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.spinagent.plugin.accounts.AccountRequestException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Request bodies of the accounts API, read strictly: a body over the limit is refused before more
 * of it is read, and an unknown or mistyped field is a 400 naming it, never silently ignored.
 */
final class StrictJson {

  /**
   * Deeper than any account definition nests (about 5): a body nested deeper is refused before it
   * is built into a tree, which a recursive copy of tens of thousands of levels would overflow.
   */
  static final int MAX_DEPTH = 64;

  static final ObjectMapper MAPPER =
      new ObjectMapper()
          .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
          // A key given twice is a mistake to name, not a value to pick.
          .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

  private StrictJson() {}

  /**
   * The request's body, read only up to {@code maxBytes}: a client that sends more gets a 413
   * before the plugin holds more than the limit of it.
   */
  static String body(InputStream request, long maxBytes) {
    try {
      byte[] bytes = request.readNBytes((int) maxBytes + 1);
      if (bytes.length > maxBytes) {
        throw tooLarge("more than " + maxBytes + " bytes", maxBytes);
      }
      return new String(bytes, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw invalid("body: cannot be read: " + e.getMessage());
    }
  }

  /** The body as a JSON tree; {@code expected} says what it should be ("a JSON object"). */
  static JsonNode tree(String body, String expected) {
    if (body == null || body.isBlank()) {
      throw invalid("body: " + expected + " is required");
    }
    try {
      requireDepth(body);
      JsonNode tree = MAPPER.readTree(body);
      if (tree == null || tree.isNull() || tree.isMissingNode()) {
        throw invalid("body: " + expected + " is required, not null");
      }
      return tree;
    } catch (JsonProcessingException e) {
      String message = e.getOriginalMessage();
      throw invalid(
          message.startsWith("Duplicate field")
              ? "body: " + message.replace("Duplicate field", "field") + " is given twice"
              : "body: malformed JSON: " + message);
    } catch (IOException e) {
      throw invalid("body: cannot be read: " + e.getMessage());
    }
  }

  /**
   * Reads {@code body}'s tokens once, refusing it when it nests deeper than {@value #MAX_DEPTH} (or
   * is malformed, which {@link #tree} words as it does for any body).
   */
  static void requireDepth(String body) throws IOException {
    try (JsonParser parser = MAPPER.getFactory().createParser(body)) {
      int depth = 0;
      for (JsonToken token = parser.nextToken(); token != null; token = parser.nextToken()) {
        if (token.isStructStart() && ++depth > MAX_DEPTH) {
          throw invalid(
              "body: JSON nested deeper than " + MAX_DEPTH + " levels, which no account needs");
        } else if (token.isStructEnd()) {
          depth--;
        }
      }
    }
  }

  /**
   * {@code node} as a {@code type}; problems name the field, after {@code where} (e.g. {@code
   * "[2]."} for the third element of an array body).
   */
  static <T> T read(JsonNode node, Class<T> type, String where) {
    if (node == null || node.isNull()) {
      throw invalid(
          (where.isEmpty() ? "body" : where.substring(0, where.length() - 1))
              + ": a JSON object is required, not null");
    }
    try {
      return MAPPER.treeToValue(node, type);
    } catch (UnrecognizedPropertyException e) {
      // Sorted: Jackson keeps the known fields in no particular order.
      List<String> known = e.getKnownPropertyIds().stream().map(String::valueOf).sorted().toList();
      throw invalid(where + fieldPath(e) + ": unknown field (known: " + known + ")");
    } catch (JsonProcessingException e) {
      String path =
          e instanceof JsonMappingException mapping && !mapping.getPath().isEmpty()
              ? where + fieldPath(mapping) + ": "
              : (where.isEmpty() ? "body" : where.substring(0, where.length() - 1)) + ": ";
      throw invalid(path + "malformed JSON: " + e.getOriginalMessage());
    }
  }

  /** The field's path as the API's messages write it: {@code customResources[0].kind}. */
  private static String fieldPath(JsonMappingException e) {
    StringBuilder path = new StringBuilder();
    for (var reference : e.getPath()) {
      if (reference.getFieldName() != null) {
        path.append(path.length() == 0 ? "" : ".").append(reference.getFieldName());
      } else {
        path.append('[').append(reference.getIndex()).append(']');
      }
    }
    return path.toString();
  }

  static AccountRequestException invalid(String message) {
    return new AccountRequestException(AccountRequestException.Problem.INVALID, message);
  }

  private static AccountRequestException tooLarge(String size, long maxBytes) {
    return new AccountRequestException(
        AccountRequestException.Problem.TOO_LARGE,
        "body: "
            + size
            + " is over the limit of "
            + maxBytes
            + " bytes (spinagent.accounts.max-request-body)");
  }
}
