package io.spinagent.testkit.kubernetes;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;

/**
 * One column of a server-side table: its definition as the API server sends it ({@code
 * columnDefinitions}) and how a row's cell is computed from the object. Columns of priority 1 are
 * the ones kubectl shows only with {@code -o wide}; the server always sends every cell.
 *
 * @param type the OpenAPI type of the cells: string, integer, number, boolean or date
 * @param format name for the column that identifies the object, quantity, duration, or empty
 */
record TableColumn(
    String name, String type, String format, int priority, String description, Cell cell) {

  /** Computes a cell: a String, a Long or a Boolean, as the API server's printers produce them. */
  @FunctionalInterface
  interface Cell {
    /**
     * The cell of one object.
     *
     * @param object the object at the version asked for
     * @param now the server's time, for ages and durations
     */
    Object of(ObjectNode object, Instant now);
  }

  ObjectNode definition() {
    ObjectNode definition = Json.object();
    definition.put("name", name);
    definition.put("type", type);
    definition.put("format", format);
    definition.put("description", description);
    definition.put("priority", priority);
    return definition;
  }
}
