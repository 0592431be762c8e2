package io.spinagent.testkit.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;

/**
 * The form a response takes, chosen from the Accept header the way a real API server does it: whole
 * objects; metadata only ({@code as=PartialObjectMetadata[List];g=meta.k8s.io;v=v1}, which is how
 * the agent lists Secrets without ever receiving their data); or server-side tables ({@code
 * as=Table;g=meta.k8s.io;v=v1}, what kubectl's default printer asks for). Protobuf is never
 * produced: clients always offer JSON as an alternative.
 */
enum ResponseShape {
  FULL,
  METADATA,
  TABLE;

  static ResponseShape negotiate(String accept) {
    if (accept == null || accept.isBlank()) {
      return FULL;
    }
    for (String mediaRange : accept.split(",", 0)) {
      String[] parts = mediaRange.split(";", 0);
      String mediaType = parts[0].trim().toLowerCase(Locale.ROOT);
      if (!mediaType.equals("application/json")
          && !mediaType.equals("*/*")
          && !mediaType.equals("application/*")) {
        continue;
      }
      String as = null;
      String group = null;
      for (int i = 1; i < parts.length; i++) {
        String[] param = parts[i].trim().split("=", 2);
        if (param.length == 2 && param[0].trim().equals("as")) {
          as = param[1].trim();
        } else if (param.length == 2 && param[0].trim().equals("g")) {
          group = param[1].trim();
        }
      }
      if (as == null) {
        return FULL;
      }
      if ("meta.k8s.io".equals(group)
          && ("PartialObjectMetadata".equals(as) || "PartialObjectMetadataList".equals(as))) {
        return METADATA;
      }
      if ("meta.k8s.io".equals(group) && "Table".equals(as)) {
        return TABLE;
      }
      // An "as" we do not produce (e.g. aggregated discovery): try the next media range.
    }
    return FULL;
  }

  /** One object as this shape presents it, at the version the client asked for. */
  ObjectNode single(StoredObject object, ResourceType requested, String includeObject) {
    return switch (this) {
      case FULL -> full(object, requested);
      case METADATA -> partial(object);
      case TABLE -> table(requested, List.of(object), null, includeObject);
    };
  }

  ObjectNode list(ResourceType requested, ResourceStore.ListResult result, String includeObject) {
    ObjectNode listMeta = Json.object();
    listMeta.put("resourceVersion", String.valueOf(result.resourceVersion()));
    if (result.continueToken() != null) {
      listMeta.put("continue", result.continueToken());
    }
    if (result.remainingItemCount() != null) {
      listMeta.put("remainingItemCount", result.remainingItemCount());
    }
    if (this == TABLE) {
      return table(requested, result.items(), listMeta, includeObject);
    }
    ObjectNode list = Json.object();
    if (this == METADATA) {
      list.put("apiVersion", "meta.k8s.io/v1");
      list.put("kind", "PartialObjectMetadataList");
    } else {
      list.put("apiVersion", requested.apiVersion());
      list.put("kind", requested.listKind());
    }
    list.set("metadata", listMeta);
    ArrayNode items = list.putArray("items");
    for (StoredObject object : result.items()) {
      items.add(this == METADATA ? partial(object) : full(object, requested));
    }
    return list;
  }

  /** The object of a BOOKMARK event: only the resourceVersion matters to clients. */
  ObjectNode bookmark(ResourceType requested, long resourceVersion, boolean initialEventsEnd) {
    ObjectNode bookmark = Json.object();
    if (this == METADATA) {
      bookmark.put("apiVersion", "meta.k8s.io/v1");
      bookmark.put("kind", "PartialObjectMetadata");
    } else {
      bookmark.put("apiVersion", requested.apiVersion());
      bookmark.put("kind", requested.kind());
    }
    ObjectNode metadata = bookmark.putObject("metadata");
    metadata.put("resourceVersion", String.valueOf(resourceVersion));
    if (initialEventsEnd) {
      metadata.putObject("annotations").put("k8s.io/initial-events-end", "true");
    }
    return bookmark;
  }

  static ObjectNode full(StoredObject object, ResourceType requested) {
    ObjectNode tree = object.tree();
    // Versions of one resource share storage; the client gets the version it asked for (None
    // conversion).
    if (tree.has("apiVersion")) {
      tree.put("apiVersion", requested.apiVersion());
    }
    return tree;
  }

  static ObjectNode partial(StoredObject object) {
    ObjectNode tree = object.tree();
    ObjectNode partial = Json.object();
    partial.put("apiVersion", "meta.k8s.io/v1");
    partial.put("kind", "PartialObjectMetadata");
    JsonNode metadata = tree.get("metadata");
    partial.set("metadata", metadata == null ? Json.object() : metadata);
    return partial;
  }

  private static ObjectNode table(
      ResourceType requested,
      List<StoredObject> objects,
      ObjectNode listMeta,
      String includeObject) {
    ObjectNode table = Json.object();
    table.put("apiVersion", "meta.k8s.io/v1");
    table.put("kind", "Table");
    table.set("metadata", listMeta == null ? Json.object() : listMeta);
    ArrayNode columns = table.putArray("columnDefinitions");
    columns
        .addObject()
        .put("name", "Name")
        .put("type", "string")
        .put("format", "name")
        .put("description", "Name must be unique within a namespace.")
        .put("priority", 0);
    columns
        .addObject()
        .put("name", "Age")
        .put("type", "string")
        .put("format", "")
        .put(
            "description",
            "CreationTimestamp is a timestamp representing the server time when this object was "
                + "created.")
        .put("priority", 0);
    ArrayNode rows = table.putArray("rows");
    for (StoredObject object : objects) {
      ObjectNode tree = object.tree();
      ObjectNode row = rows.addObject();
      ArrayNode cells = row.putArray("cells");
      cells.add(Json.text(tree, "metadata.name"));
      cells.add(age(Json.text(tree, "metadata.creationTimestamp")));
      String include = includeObject == null ? "Metadata" : includeObject;
      if ("Object".equals(include)) {
        row.set("object", full(object, requested));
      } else if (!"None".equals(include)) {
        row.set("object", partial(object));
      }
    }
    return table;
  }

  /** kubectl's short human duration ("45s", "3m12s", "5h", "2d"). */
  static String age(String creationTimestamp) {
    if (creationTimestamp == null) {
      return "<unknown>";
    }
    try {
      Duration d = Duration.between(Instant.parse(creationTimestamp), Instant.now());
      long seconds = Math.max(0, d.toSeconds());
      if (seconds < 120) {
        return seconds + "s";
      }
      long minutes = seconds / 60;
      if (minutes < 10) {
        return minutes + "m" + (seconds % 60 == 0 ? "" : (seconds % 60) + "s");
      }
      if (minutes < 180) {
        return minutes + "m";
      }
      long hours = minutes / 60;
      if (hours < 48) {
        return hours + "h";
      }
      return (hours / 24) + "d";
    } catch (DateTimeParseException e) {
      return "<invalid>";
    }
  }
}
