package io.spinagent.agent.armory;

import io.spinagent.agent.config.yaml.Origin;
import java.util.List;
import java.util.Objects;

/**
 * One change that turns a setting written for Armory Scale Agent into SpinAgent's own form: an
 * Armory spelling renamed, an Armory value form rewritten, a default made explicit, or a setting
 * SpinAgent does not apply dropped. The binder records one for every such setting it meets, so that
 * {@code spinagent-agent convert-armory} writes exactly what the agent reads (see {@link
 * ArmoryAgentKeys} for the keys and {@code io.spinagent.agent.convert} for the converter).
 *
 * @param path where in the file, as map keys (strings) and list indexes (integers)
 * @param kind what is done there
 * @param value the new key name ({@link Kind#RENAME}), the new value as plain YAML data: strings,
 *     numbers, booleans, lists and maps ({@link Kind#REPLACE}, {@link Kind#ADD}), or null
 * @param keyPath the key path as the operator wrote it, e.g. {@code kubernetes.accounts[0].kinds}
 * @param origin where it was written (for {@link Kind#ADD}, the map it is added to)
 * @param reason why, for the converter's list of changes
 */
public record ArmoryRewrite(
    List<Object> path, Kind kind, Object value, String keyPath, Origin origin, String reason) {

  public enum Kind {
    /** The key keeps its value under another name. */
    RENAME,
    /** The key keeps its name and gets another value. */
    REPLACE,
    /** The key is dropped; SpinAgent does not apply it. */
    REMOVE,
    /** A key that was not written is added, making a default of Armory's explicit. */
    ADD
  }

  public ArmoryRewrite {
    path = List.copyOf(path);
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(keyPath, "keyPath");
    Objects.requireNonNull(origin, "origin");
    Objects.requireNonNull(reason, "reason");
  }

  /** {@code file:line: key.path: reason}, as the converter lists it. */
  public String describe() {
    return origin.describe() + ": " + keyPath + ": " + reason;
  }
}
