package io.spinagent.plugin.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

/**
 * One command about one account, as the REST API received it: run by the replica that holds the
 * account's (or its agents') stream, whichever replica received it. It travels between replicas as
 * JSON.
 *
 * @param body for {@code CREATE} the account's definition; for {@code CHANGE} a state, a new
 *     definition, or both; for {@code MIGRATE} the {@code agentId} or {@code zoneId} to migrate to;
 *     empty for {@code DELETE}
 */
public record AccountCommand(Kind kind, String name, JsonNode body) {

  public AccountCommand {
    body = body == null ? JsonNodeFactory.instance.objectNode() : body;
  }

  /** What the command does. */
  public enum Kind {
    /** Create a dynamic account. */
    CREATE,
    /** Switch an account on or off, or give a dynamic account a new definition. */
    CHANGE,
    /** Delete an account. */
    DELETE,
    /** Put a Clouddriver-managed account under agent management. */
    MIGRATE
  }

  /** The agent id the command names in its body, or null. */
  String agentId() {
    return text("agentId");
  }

  /** The zone id the command names in its body, or null. */
  String zoneId() {
    return text("zoneId");
  }

  private String text(String field) {
    JsonNode value = body.get(field);
    return value != null && value.isTextual() ? value.asText() : null;
  }
}
