package io.spinagent.testkit.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The form a response takes, chosen from the Accept header the way a real API server does it: whole
 * objects; metadata only ({@code as=PartialObjectMetadata[List];g=meta.k8s.io;v=v1}, which is how
 * the agent lists Secrets without ever receiving their data); or server-side tables ({@code
 * as=Table;g=meta.k8s.io;v=v1}, what kubectl's default printer asks for; see {@link
 * ServerSideTables}). Protobuf is never produced: clients always offer JSON as an alternative.
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

  /** One stored object as this shape presents it, at the version the client asked for. */
  ObjectNode single(
      StoredObject object, ResourceType requested, String includeObject, ServerSideTables tables) {
    return single(full(object, requested), requested, includeObject, tables);
  }

  /** One object (whole, at the version asked for) as this shape presents it. */
  ObjectNode single(
      ObjectNode object, ResourceType requested, String includeObject, ServerSideTables tables) {
    return switch (this) {
      case FULL -> object;
      case METADATA -> partial(object);
      case TABLE -> tables.table(requested, List.of(object), null, includeObject);
    };
  }

  ObjectNode list(
      ResourceType requested,
      ResourceStore.ListResult result,
      String includeObject,
      ServerSideTables tables) {
    ObjectNode listMeta = Json.object();
    listMeta.put("resourceVersion", String.valueOf(result.resourceVersion()));
    if (result.continueToken() != null) {
      listMeta.put("continue", result.continueToken());
    }
    if (result.remainingItemCount() != null) {
      listMeta.put("remainingItemCount", result.remainingItemCount());
    }
    List<ObjectNode> items = new ArrayList<>();
    result.items().forEach(object -> items.add(full(object, requested)));
    return list(requested, items, listMeta, includeObject, tables);
  }

  /** Objects (whole, at the version asked for) as a list of this shape. */
  ObjectNode list(
      ResourceType requested,
      List<ObjectNode> objects,
      ObjectNode listMeta,
      String includeObject,
      ServerSideTables tables) {
    if (this == TABLE) {
      return tables.table(requested, objects, listMeta, includeObject);
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
    for (ObjectNode object : objects) {
      items.add(this == METADATA ? partial(object) : object);
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

  /** An object reduced to its metadata, as PartialObjectMetadata. */
  static ObjectNode partial(ObjectNode object) {
    ObjectNode partial = Json.object();
    partial.put("apiVersion", "meta.k8s.io/v1");
    partial.put("kind", "PartialObjectMetadata");
    JsonNode metadata = object.get("metadata");
    partial.set("metadata", metadata == null ? Json.object() : metadata.deepCopy());
    return partial;
  }
}
