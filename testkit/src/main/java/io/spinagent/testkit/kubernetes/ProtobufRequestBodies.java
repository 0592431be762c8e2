package io.spinagent.testkit.kubernetes;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the few protobuf request bodies the test server understands. kubectl's typed clients (used
 * by {@code kubectl auth can-i}, which Clouddriver runs to check permissions) send {@code
 * application/vnd.kubernetes.protobuf}; decoding an arbitrary kind needs its schema, so only
 * SelfSubjectAccessReview is decoded (field numbers from k8s.io/api authorization/v1
 * generated.proto). Every other protobuf body is refused with 415. Responses are always JSON, which
 * clients accept.
 */
final class ProtobufRequestBodies {

  static final String MEDIA_TYPE = "application/vnd.kubernetes.protobuf";
  private static final byte[] MAGIC = {'k', '8', 's', 0};

  private ProtobufRequestBodies() {}

  static boolean isProtobuf(String contentType) {
    return contentType != null && contentType.trim().startsWith(MEDIA_TYPE);
  }

  /** The JSON form of a protobuf SelfSubjectAccessReview (metadata and status are not needed). */
  static ObjectNode selfSubjectAccessReview(byte[] body) {
    byte[] raw = unwrap(body);
    ObjectNode review = Json.object();
    review.put("apiVersion", "authorization.k8s.io/v1");
    review.put("kind", "SelfSubjectAccessReview");
    ObjectNode spec = review.putObject("spec");
    for (Field field : fields(raw)) {
      if (field.number == 2) {
        for (Field specField : fields(field.bytes)) {
          if (specField.number == 1) {
            spec.set(
                "resourceAttributes",
                strings(
                    specField.bytes,
                    "namespace",
                    "verb",
                    "group",
                    "version",
                    "resource",
                    "subresource",
                    "name"));
          } else if (specField.number == 2) {
            spec.set("nonResourceAttributes", strings(specField.bytes, "path", "verb"));
          }
        }
      }
    }
    return review;
  }

  /** Strips the "k8s\0" magic and the runtime.Unknown envelope, returning its raw object bytes. */
  private static byte[] unwrap(byte[] body) {
    if (body.length < MAGIC.length) {
      throw ApiError.badRequest("protobuf body too short");
    }
    for (int i = 0; i < MAGIC.length; i++) {
      if (body[i] != MAGIC[i]) {
        throw ApiError.badRequest("protobuf body lacks the k8s envelope");
      }
    }
    byte[] unknown = new byte[body.length - MAGIC.length];
    System.arraycopy(body, MAGIC.length, unknown, 0, unknown.length);
    for (Field field : fields(unknown)) {
      if (field.number == 2) {
        return field.bytes;
      }
    }
    throw ApiError.badRequest("protobuf envelope has no raw object");
  }

  /** Maps string fields 1..n of a message onto JSON names, skipping empty ones. */
  private static ObjectNode strings(byte[] message, String... names) {
    ObjectNode node = Json.object();
    for (Field field : fields(message)) {
      if (field.number >= 1 && field.number <= names.length && field.bytes != null) {
        String value = new String(field.bytes, StandardCharsets.UTF_8);
        if (!value.isEmpty()) {
          node.put(names[field.number - 1], value);
        }
      }
    }
    return node;
  }

  // Only iterated over, never compared or hashed: the array's identity equals does not matter.
  @SuppressWarnings("ArrayRecordComponent")
  private record Field(int number, byte[] bytes) {}

  /**
   * The protobuf wire format: keeps length-delimited fields, skips varints and fixed-width ones.
   */
  private static List<Field> fields(byte[] message) {
    List<Field> fields = new ArrayList<>();
    int[] position = {0};
    while (position[0] < message.length) {
      long key = varint(message, position);
      int number = (int) (key >>> 3);
      int wireType = (int) (key & 7);
      switch (wireType) {
        case 0 -> varint(message, position);
        case 1 -> position[0] += 8;
        case 5 -> position[0] += 4;
        case 2 -> {
          int length = (int) varint(message, position);
          if (length < 0 || position[0] + length > message.length) {
            throw ApiError.badRequest("truncated protobuf message");
          }
          ByteArrayOutputStream bytes = new ByteArrayOutputStream(length);
          bytes.write(message, position[0], length);
          position[0] += length;
          fields.add(new Field(number, bytes.toByteArray()));
        }
        default -> throw ApiError.badRequest("unsupported protobuf wire type " + wireType);
      }
    }
    return fields;
  }

  private static long varint(byte[] message, int[] position) {
    long value = 0;
    int shift = 0;
    while (true) {
      if (position[0] >= message.length || shift > 63) {
        throw ApiError.badRequest("truncated protobuf varint");
      }
      byte b = message[position[0]++];
      value |= (long) (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        return value;
      }
      shift += 7;
    }
  }
}
