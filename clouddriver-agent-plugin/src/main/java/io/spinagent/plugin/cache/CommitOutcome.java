package io.spinagent.plugin.cache;

import io.spinagent.protocol.v1.Kind;
import io.spinagent.protocol.v1.RefusedChange;
import java.util.List;

/**
 * What a committed batch tells its agent besides the acknowledgement.
 *
 * @param refused changes committed as "not stored", with the reason (the agent logs and counts
 *     them; sending them again would not help)
 * @param relistRequired kinds whose complete listing cannot be finished from what this process saw
 *     (e.g. the END of a listing whose BEGIN reached another process): the agent is asked to list
 *     them again
 */
public record CommitOutcome(List<RefusedChange> refused, List<Kind> relistRequired) {

  /** Everything stored, nothing to ask. */
  public static final CommitOutcome STORED = new CommitOutcome(List.of(), List.of());

  public CommitOutcome {
    refused = List.copyOf(refused);
    relistRequired = List.copyOf(relistRequired);
  }
}
