package io.spinagent.agent.cluster;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Copies a Kubernetes object from a streaming JSON parser to bytes, leaving out what must never
 * leave the cluster or even reach the agent's heap as a value:
 *
 * <ul>
 *   <li>{@code metadata.managedFields} of every object (large, and of no use downstream);
 *   <li>for Secrets, {@code data}, {@code stringData} and the {@code
 *       kubectl.kubernetes.io/last-applied-configuration} annotation (which holds the data again,
 *       as written by {@code kubectl apply}).
 * </ul>
 *
 * <p>Skipped values are passed over token by token: Jackson does not decode a string value that is
 * skipped, so no {@code String} or {@code char[]} holding it is ever created. This is the second
 * layer of Secret protection; the first is that Secrets are listed and watched with the
 * metadata-only {@code Accept} header, so the API server does not send their data at all.
 */
public final class ObjectScrubber {

  public static final String LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

  /**
   * Buffer recycling off: a recycled parse buffer would keep the last bytes read (possibly a
   * skipped value) reachable from a thread-local for the life of the thread.
   */
  static final JsonFactory JSON =
      JsonFactory.builder()
          .disable(JsonFactory.Feature.USE_THREAD_LOCAL_FOR_BUFFER_RECYCLING)
          .disable(JsonFactory.Feature.INTERN_FIELD_NAMES)
          .build();

  private final boolean secret;
  private final String apiVersion;
  private final String kind;

  /**
   * @param secret whether objects are Secrets, whose payload fields are left out
   */
  public ObjectScrubber(boolean secret) {
    this(secret, null, null);
  }

  /**
   * @param secret whether objects are Secrets, whose payload fields are left out
   * @param apiVersion when not null, written as the object's {@code apiVersion} in place of the one
   *     read (with {@code kind}): metadata-only responses label every object {@code meta.k8s.io/v1
   *     PartialObjectMetadata}
   * @param kind the {@code kind} written with {@code apiVersion}
   */
  ObjectScrubber(boolean secret, String apiVersion, String kind) {
    this.secret = secret;
    this.apiVersion = apiVersion;
    this.kind = kind;
  }

  /**
   * An object as sent: its scrubbed JSON, and the metadata the agent keeps or sends beside it
   * (empty strings where the object has none).
   */
  // The bytes are handed on as they are and never compared, so array identity is all it needs.
  @SuppressWarnings("ArrayRecordComponent")
  record Scrubbed(byte[] json, String namespace, String name, String uid, String resourceVersion) {
    /** {@code namespace/name}, or {@code /name} for a cluster-scoped object. */
    String key() {
      return namespace + "/" + name;
    }
  }

  public boolean isSecret() {
    return secret;
  }

  /**
   * Scrubs the object whose START_OBJECT is the parser's current token, keeping its metadata; on
   * return the parser is at the matching END_OBJECT.
   */
  Scrubbed scrubObject(JsonParser parser) throws IOException {
    if (parser.currentToken() != JsonToken.START_OBJECT) {
      throw new IOException("expected a JSON object, got " + parser.currentToken());
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(512);
    Metadata metadata = new Metadata();
    try (JsonGenerator generator = JSON.createGenerator(out)) {
      copyObject(parser, generator, Level.ROOT, metadata);
    }
    return new Scrubbed(
        out.toByteArray(),
        metadata.namespace,
        metadata.name,
        metadata.uid,
        metadata.resourceVersion);
  }

  /** What {@link #scrubObject} picks up from {@code metadata} on the way. */
  private static final class Metadata {
    String namespace = "";
    String name = "";
    String uid = "";
    String resourceVersion = "";

    void set(String field, String value) {
      switch (field) {
        case "namespace" -> namespace = value;
        case "name" -> name = value;
        case "uid" -> uid = value;
        case "resourceVersion" -> resourceVersion = value;
        default -> {
          // Not kept.
        }
      }
    }
  }

  /** Scrubs one whole JSON object given as bytes. */
  public byte[] scrub(byte[] json) {
    try (JsonParser parser = JSON.createParser(json)) {
      parser.nextToken();
      return scrubObject(parser).json();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private enum Level {
    ROOT,
    METADATA,
    ANNOTATIONS,
    OTHER
  }

  private void copyObject(JsonParser p, JsonGenerator g, Level level, Metadata metadata)
      throws IOException {
    g.writeStartObject();
    if (level == Level.ROOT && apiVersion != null) {
      g.writeStringField("apiVersion", apiVersion);
      g.writeStringField("kind", kind);
    }
    JsonToken token;
    while ((token = p.nextToken()) == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken value = p.nextToken();
      if (skip(level, field)) {
        // Structures are skipped; a skipped scalar is never decoded (see the class comment).
        p.skipChildren();
        continue;
      }
      if (level == Level.METADATA && value == JsonToken.VALUE_STRING) {
        metadata.set(field, p.getText());
      }
      g.writeFieldName(field);
      Level child = Level.OTHER;
      if (level == Level.ROOT && "metadata".equals(field)) {
        child = Level.METADATA;
      } else if (level == Level.METADATA && "annotations".equals(field)) {
        child = Level.ANNOTATIONS;
      }
      copyValue(p, g, value, child, metadata);
    }
    if (token != JsonToken.END_OBJECT) {
      throw new IOException("malformed JSON object: " + token);
    }
    g.writeEndObject();
  }

  private boolean skip(Level level, String field) {
    switch (level) {
      case ROOT:
        return (secret && ("data".equals(field) || "stringData".equals(field)))
            || (apiVersion != null && ("apiVersion".equals(field) || "kind".equals(field)));
      case METADATA:
        return "managedFields".equals(field);
      case ANNOTATIONS:
        return secret && LAST_APPLIED.equals(field);
      default:
        return false;
    }
  }

  private void copyValue(
      JsonParser p, JsonGenerator g, JsonToken value, Level level, Metadata metadata)
      throws IOException {
    switch (value) {
      case START_OBJECT -> copyObject(p, g, level, metadata);
      case START_ARRAY -> {
        g.writeStartArray();
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
          if (t == null) {
            throw new IOException("unexpected end of JSON array");
          }
          copyValue(p, g, t, Level.OTHER, metadata);
        }
        g.writeEndArray();
      }
      // A decimal number is written as it was read (1.50 stays 1.50, 1e3 stays 1e3), not through
      // a double. (Not copyCurrentEventExact: Clouddriver's class path has Jackson 2.13, before
      // it.)
      case VALUE_NUMBER_FLOAT -> g.writeNumber(p.getText());
      default -> g.copyCurrentEvent(p);
    }
  }
}
