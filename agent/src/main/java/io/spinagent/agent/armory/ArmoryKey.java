package io.spinagent.agent.armory;

import java.util.Locale;
import java.util.Objects;

/**
 * One setting of Armory Scale Agent and what SpinAgent does with it: a row of a mapping table
 * ({@link ArmoryAgentKeys} for the agent's file; the converter's table for the plugin's {@code
 * kubesvc.*} block). The tables are the single source of docs/migrating-from-armory.md's mapping.
 *
 * @param key the Armory key path; list items written {@code []}, e.g. {@code
 *     kubernetes.accounts[].kubeConfigFile}
 * @param treatment what happens to it
 * @param spinAgentKey the SpinAgent key it becomes, or null when there is none
 * @param armory what it means in Armory Scale Agent, as a short phrase
 * @param spinAgent what SpinAgent does instead or in addition, as a sentence for the operator
 * @param harmless for {@link Treatment#WARNED} keys, the value (as written, any case; {@code []}
 *     for an empty list) that asks for nothing SpinAgent would do differently, so that setting it
 *     is not worth a warning; null when every value is
 */
public record ArmoryKey(
    String key,
    Treatment treatment,
    String spinAgentKey,
    String armory,
    String spinAgent,
    String harmless) {

  /** What becomes of an Armory setting. */
  public enum Treatment {
    /** Same key, same meaning (a different default is in the note). */
    SAME,
    /**
     * Armory's spelling or value form is read with Armory's meaning and rewritten by the converter.
     */
    CONVERTED,
    /** Accepted, but SpinAgent does not apply it; a warning says what SpinAgent does instead. */
    WARNED,
    /** Refused with an error that says why and what to do. */
    UNSUPPORTED;

    /** As the mapping tables in the docs write it. */
    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public ArmoryKey {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(treatment, "treatment");
    Objects.requireNonNull(armory, "armory");
    Objects.requireNonNull(spinAgent, "spinAgent");
  }

  /** The warning for a key SpinAgent reads but does not apply. */
  public String warning() {
    return "Armory Scale Agent setting ("
        + armory
        + ") that SpinAgent does not apply: "
        + spinAgent;
  }
}
