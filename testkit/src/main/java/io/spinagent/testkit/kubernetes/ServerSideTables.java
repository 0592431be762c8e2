package io.spinagent.testkit.kubernetes;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Clock;
import java.time.Instant;
import java.util.List;

/**
 * Server-side tables ({@code Accept: application/json;as=Table;v=v1;g=meta.k8s.io}, what kubectl's
 * printer asks for): the columns and cells a real API server prints for the built-in kinds ({@link
 * BuiltInTables}), the Name and Age of a custom resource without printer columns, and Name and Age
 * for any other kind. Every cell is sent, {@code -o wide} ones included; kubectl hides priority 1
 * columns unless asked. Ages and durations are measured against the server's clock.
 */
final class ServerSideTables {

  private static final String NAME_DESCRIPTION =
      "Name must be unique within a namespace. Is required when creating resources, although some"
          + " resources may allow a client to request the generation of an appropriate name"
          + " automatically. Name is primarily intended for creation idempotence and configuration"
          + " definition. Cannot be updated. More info:"
          + " https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
  private static final String CREATION_TIMESTAMP_DESCRIPTION =
      "CreationTimestamp is a timestamp representing the server time when this object was created."
          + " It is not guaranteed to be set in happens-before order across separate operations."
          + " Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\n"
          + "Populated by the system. Read-only. Null for lists. More info:"
          + " https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

  /** A custom resource's default: its Age is a date column, printed as a duration. */
  private static final List<TableColumn> CUSTOM_RESOURCE =
      List.of(
          new TableColumn(
              "Name",
              "string",
              "name",
              0,
              NAME_DESCRIPTION,
              (o, now) -> Json.text(o, "metadata.name")),
          new TableColumn("Age", "date", "", 0, CREATION_TIMESTAMP_DESCRIPTION, TableCells::age));

  /** Any other kind: name and age. */
  private static final List<TableColumn> OTHER =
      List.of(
          CUSTOM_RESOURCE.get(0),
          new TableColumn("Age", "string", "", 0, CREATION_TIMESTAMP_DESCRIPTION, TableCells::age));

  private final Clock clock;

  ServerSideTables(Clock clock) {
    this.clock = clock;
  }

  /**
   * A Table of {@code objects} (at the version asked for).
   *
   * @param listMeta the list's metadata; null for a single object or a watch event
   * @param includeObject None, Object, or Metadata (the default): what each row carries of its
   *     object
   */
  ObjectNode table(
      ResourceType type, List<ObjectNode> objects, ObjectNode listMeta, String includeObject) {
    List<TableColumn> columns = columns(type);
    Instant now = clock.instant();
    ObjectNode table = Json.object();
    table.put("apiVersion", "meta.k8s.io/v1");
    table.put("kind", "Table");
    table.set("metadata", listMeta == null ? Json.object() : listMeta);
    ArrayNode definitions = table.putArray("columnDefinitions");
    columns.forEach(column -> definitions.add(column.definition()));
    ArrayNode rows = table.putArray("rows");
    for (ObjectNode object : objects) {
      ObjectNode row = rows.addObject();
      ArrayNode cells = row.putArray("cells");
      for (TableColumn column : columns) {
        addCell(cells, column.cell().of(object, now));
      }
      addConditions(type, object, row);
      String include = includeObject == null ? "Metadata" : includeObject;
      if ("Object".equals(include)) {
        row.set("object", object);
      } else if (!"None".equals(include)) {
        row.set("object", ResponseShape.partial(object));
      }
    }
    return table;
  }

  static List<TableColumn> columns(ResourceType type) {
    return BuiltInTables.columns(type).orElse(type.crdName() != null ? CUSTOM_RESOURCE : OTHER);
  }

  private static void addCell(ArrayNode cells, Object value) {
    if (value instanceof Long number) {
      cells.add(number);
    } else if (value instanceof Boolean bool) {
      cells.add(bool);
    } else {
      cells.add(value == null ? null : value.toString());
    }
  }

  /** A finished Pod's row says so, as the API server's pod printer marks it. */
  private static void addConditions(ResourceType type, ObjectNode object, ObjectNode row) {
    if (!type.group().isEmpty() || !type.kind().equals("Pod")) {
      return;
    }
    String phase = Json.text(object, "status.phase");
    if ("Succeeded".equals(phase) || "Failed".equals(phase)) {
      row.putArray("conditions")
          .addObject()
          .put("type", "Completed")
          .put("status", "True")
          .put("reason", phase)
          .put(
              "message",
              phase.equals("Succeeded")
                  ? "The pod has completed successfully."
                  : "The pod failed.");
    }
  }
}
